-- +goose Up
CREATE TABLE widgets (
    id bigserial PRIMARY KEY,
    sku text NOT NULL,
    CONSTRAINT widgets_sku_key UNIQUE (sku)
);

-- +goose Down
DROP TABLE widgets;
