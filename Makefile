# Two commands: `make dev` serves the whole API locally, `make test` runs
# every test. See README.md.
.PHONY: dev test lint fmt validate bench bench-scale build clean

dev:
	scripts/dev.sh

test:
	scripts/test.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Both SAM validations, offline (needs aws-sam-cli; .ci/run installs it).
validate:
	sam validate --lint --region us-east-1
	sam validate --region us-east-1

# Binary size, cold start, latency and DynamoDB cost per route.
bench:
	scripts/bench.sh

# Issue listings at 100 and 10,000 issues, search over 200+ repositories.
bench-scale:
	scripts/bench-scale.sh

build:
	sam build

clean:
	rm -rf target .aws-sam
