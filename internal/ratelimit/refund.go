package ratelimit

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// redisBucketPrefix is where redis_rate keeps a bucket named key: its own
// "rate:" before the name Allow gives it.
const redisBucketPrefix = "rate:gatehouse:rl:"

// refundScript moves a bucket's theoretical arrival time back by cost
// seconds, in the units redis_rate's GCRA script keeps it (seconds since
// 2017-01-01 by the Redis clock). A bucket that ends up full is deleted,
// exactly as that script leaves a full bucket unset. redis_rate's own
// AllowN cannot refund: with a negative cost it leaves the key unchanged
// whenever the result would be a full bucket, so the last request
// reserved would never come back.
var refundScript = redis.NewScript(`
local tat = tonumber(redis.call("GET", KEYS[1]))
if not tat then
  return 0
end
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + (t[2] / 1000000)
local new_tat = tat - tonumber(ARGV[1])
if new_tat <= now then
  redis.call("DEL", KEYS[1])
else
  redis.call("SET", KEYS[1], new_tat, "EX", math.ceil(new_tat - now))
end
return 1
`)

// Refund gives n requests back to bucket key in Redis, or in the
// per-process fallback while Redis is unreachable. It never returns an
// error: a refund that fails leaves the bucket as spent, which errs on
// the side of limiting. It runs even when ctx was cancelled, since a
// refund is owed whether or not the client is still there.
func (r *Redis) Refund(ctx context.Context, key string, limit Limit, n int) error {
	if r.skipRedis() {
		return r.fallback.Refund(ctx, key, limit, n)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	cost := float64(n) * limit.Rate.Per.Seconds() / float64(limit.Rate.Count) // as redis_rate computes its interval
	if err := refundScript.Run(ctx, r.client, []string{redisBucketPrefix + key}, cost).Err(); err != nil {
		r.markDown(err)
		return r.fallback.Refund(ctx, key, limit, n)
	}
	return nil
}
