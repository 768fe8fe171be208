-- +goose Up

-- rail_timeout wakes an item that entered processing: if the rail's answer
-- was never recorded (the process stopped between the transaction that
-- moved it to processing and the one that records the answer), the item
-- fails as after a processor error, so retry, mark-paid / mark-disbursed
-- and cancel can act on it again instead of it staying processing forever.
ALTER TABLE due_work DROP CONSTRAINT due_work_kind_check;
ALTER TABLE due_work ADD CONSTRAINT due_work_kind_check
    CHECK (kind IN ('send', 'link_expiry', 'draft_expiry', 'follow_up', 'rail_timeout'));

-- +goose Down
DELETE FROM due_work WHERE kind = 'rail_timeout';
ALTER TABLE due_work DROP CONSTRAINT due_work_kind_check;
ALTER TABLE due_work ADD CONSTRAINT due_work_kind_check
    CHECK (kind IN ('send', 'link_expiry', 'draft_expiry', 'follow_up'));
