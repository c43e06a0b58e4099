// Signs and verifies Standard Webhooks deliveries with the specification's
// own library, for clients/webhooks_test.go. Reads one JSON request on
// stdin: {"op": "verify", "secret", "headers", "body"} prints "ok" (or
// fails with the library's error); {"op": "sign", "secret", "id",
// "timestamp", "body"} prints the webhook-signature header.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);
const wh = new Webhook(req.secret);
if (req.op === "verify") {
  wh.verify(req.body, req.headers);
  console.log("ok");
} else if (req.op === "sign") {
  console.log(wh.sign(req.id, new Date(req.timestamp * 1000), req.body));
} else {
  throw new Error(`unknown op ${req.op}`);
}
