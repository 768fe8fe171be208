-- +goose Up
-- The W3C trace context of the transaction that wrote the event: the relay
-- sends it as the Kafka message's traceparent header, so the consumers'
-- spans and log lines join the request's trace. Empty when the writer had
-- no trace (a scheduler tick, a migration).
ALTER TABLE outbox ADD COLUMN traceparent text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE outbox DROP COLUMN traceparent;
