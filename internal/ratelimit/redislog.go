package ratelimit

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// redisLog carries go-redis's own messages (a failed dial, a dropped
// connection) into the service's structured log. Without it go-redis
// prints plain-text lines to stderr, which break a log made of JSON lines.
type redisLog struct{ logger *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.logger.LogAttrs(ctx, slog.LevelWarn, fmt.Sprintf(format, v...), slog.String("component", "redis"))
}

// routeRedisLogs makes logger the destination of go-redis's messages. The
// setting is process-wide in go-redis, so the last limiter made wins; a
// process has one.
func routeRedisLogs(logger *slog.Logger) {
	redis.SetLogger(redisLog{logger})
}
