// libs/webhooks: signed, at-least-once webhook delivery (issue: libs/webhooks).
export {};
