-- +goose Up
CREATE TABLE notes (
    id bigserial PRIMARY KEY,
    body text NOT NULL
);

-- +goose Down
DROP TABLE notes;
