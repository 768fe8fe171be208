-- +goose Up
CREATE TABLE parts (
    id bigserial PRIMARY KEY,
    widget_id bigint NOT NULL REFERENCES widgets (id)
);

-- +goose Down
DROP TABLE parts;
