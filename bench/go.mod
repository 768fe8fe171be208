module github.com/paylane/paylane/bench

go 1.26.8

require (
	github.com/gofiber/fiber/v2 v2.52.15
	github.com/google/go-cmp v0.7.0
	github.com/jackc/pgx/v5 v5.12.0
)

require (
	code.dny.dev/ssrf v0.3.0 // indirect
	github.com/andybalholm/brotli v1.2.6 // indirect
	github.com/armon/go-metrics v0.4.1 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/caarlos0/env/v11 v11.4.2 // indirect
	github.com/cenkalti/backoff/v5 v5.0.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-redis/redis_rate/v10 v10.0.1 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.32.0 // indirect
	github.com/hashicorp/consul/api v1.34.5 // indirect
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/go-immutable-radix v1.3.1 // indirect
	github.com/hashicorp/go-metrics v0.6.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/hashicorp/go-rootcerts v1.0.2 // indirect
	github.com/hashicorp/golang-lru v1.0.2 // indirect
	github.com/hashicorp/serf v0.10.4 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mattn/go-colorable v0.1.16 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/mfridman/interpolate v0.0.2 // indirect
	github.com/mitchellh/go-homedir v1.1.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/nyaruka/phonenumbers v1.8.1 // indirect
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	github.com/paylane/paylane/ai-gateway-svc v0.0.0 // indirect
	github.com/paylane/paylane/batch-svc v0.0.0 // indirect
	github.com/paylane/paylane/batch-svc/client v0.0.0 // indirect
	github.com/paylane/paylane/contacts-svc/client v0.0.0 // indirect
	github.com/paylane/paylane/dashboard-svc v0.0.0 // indirect
	github.com/paylane/paylane/gateway v0.0.0 // indirect
	github.com/paylane/paylane/identity-svc v0.0.0 // indirect
	github.com/paylane/paylane/optin-svc v0.0.0 // indirect
	github.com/paylane/paylane/optin-svc/client v0.0.0 // indirect
	github.com/paylane/paylane/transactions-svc v0.0.0 // indirect
	github.com/paylane/paylane/transactions-svc/client v0.0.0 // indirect
	github.com/paylane/paylane/webhook-svc v0.0.0 // indirect
	github.com/paylane/paylane/webhook-svc/client v0.0.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/pressly/goose/v3 v3.29.0 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.1 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/rivo/uniseg v0.2.0 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/segmentio/kafka-go v0.4.51 // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	github.com/skip2/go-qrcode v0.0.0-20200617195104-da1b6568686e // indirect
	github.com/sony/gobreaker/v2 v2.4.0 // indirect
	github.com/stripe/stripe-go/v82 v82.5.1 // indirect
	github.com/twmb/franz-go v1.22.2 // indirect
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.0 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasthttp v1.51.0 // indirect
	github.com/valyala/tcplisten v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.opentelemetry.io/proto/otlp v1.11.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261019180522-ce908d29299b // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261012220534-4341edf3f941 // indirect
	google.golang.org/grpc v1.84.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

require (
	github.com/paylane/paylane/contacts-svc v0.0.0
	github.com/paylane/paylane/deploy v0.0.0
	github.com/paylane/paylane/identity-svc/client v0.0.0
	github.com/paylane/paylane/libs v0.0.0
)

replace (
	github.com/paylane/paylane/ai-gateway-svc => ../ai-gateway-svc
	github.com/paylane/paylane/batch-svc => ../batch-svc
	github.com/paylane/paylane/batch-svc/client => ../batch-svc/client
	github.com/paylane/paylane/contacts-svc => ../contacts-svc
	github.com/paylane/paylane/contacts-svc/client => ../contacts-svc/client
	github.com/paylane/paylane/dashboard-svc => ../dashboard-svc
	github.com/paylane/paylane/deploy => ../deploy
	github.com/paylane/paylane/gateway => ../gateway
	github.com/paylane/paylane/identity-svc => ../identity-svc
	github.com/paylane/paylane/identity-svc/client => ../identity-svc/client
	github.com/paylane/paylane/libs => ../libs
	github.com/paylane/paylane/optin-svc => ../optin-svc
	github.com/paylane/paylane/optin-svc/client => ../optin-svc/client
	github.com/paylane/paylane/sdk/go => ../sdk/go
	github.com/paylane/paylane/transactions-svc => ../transactions-svc
	github.com/paylane/paylane/transactions-svc/client => ../transactions-svc/client
	github.com/paylane/paylane/webhook-svc => ../webhook-svc
	github.com/paylane/paylane/webhook-svc/client => ../webhook-svc/client
)
