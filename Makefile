# Two commands: `make dev` serves the whole API locally, `make test` runs
# every test. See README.md.
.PHONY: dev test lint fmt routes validate bench bench-scale build smoke clean check-data check-docs

dev:
	scripts/dev.sh

test:
	scripts/test.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo xtask routes --check

fmt:
	cargo fmt --all

# Links and paths in README.md and docs/ resolve, and README's map names
# every source file; `make test` runs it first.
check-docs:
	python3 scripts/check-docs.py

# Writes each function's route table (`shared::routes!` in
# functions/*/src/lib.rs) into Cargo.toml's local router and template.yaml's
# HttpApi events, between their GENERATED markers.
routes:
	cargo xtask routes

# Both SAM validations, cfn-lint's warnings, the example samconfig and the
# transformed template (aliases, CodeDeploy), offline (needs aws-sam-cli in
# .venv, which brings cfn-lint; .ci/run installs it): no usage reports, no
# instance-metadata lookups; SAM wants credentials to exist, not to work.
validate: export SAM_CLI_TELEMETRY = 0
validate: export AWS_EC2_METADATA_DISABLED = true
validate:
	AWS_ACCESS_KEY_ID=$${AWS_ACCESS_KEY_ID:-offline} AWS_SECRET_ACCESS_KEY=$${AWS_SECRET_ACCESS_KEY:-offline} \
	  sam validate --lint --region us-east-1
	AWS_ACCESS_KEY_ID=$${AWS_ACCESS_KEY_ID:-offline} AWS_SECRET_ACCESS_KEY=$${AWS_SECRET_ACCESS_KEY:-offline} \
	  sam validate --region us-east-1
	cfn-lint template.yaml
	.venv/bin/python scripts/check-samconfig.py
	.venv/bin/python scripts/check-transform.py

# Binary size, cold start, latency and DynamoDB cost per route.
bench:
	scripts/bench.sh

# Issue listings at 100 and 10,000 issues, search over 200+ repositories.
bench-scale:
	scripts/bench-scale.sh

# Recomputes counters and claims against what they count; REPAIR=1 fixes
# the drift it finds. Uses TABLE_NAME / DYNAMODB_ENDPOINT (make dev's table
# by default).
check-data:
	TABLE_NAME=$${TABLE_NAME:-serverless-forge} DYNAMODB_ENDPOINT=$${DYNAMODB_ENDPOINT:-http://127.0.0.1:8000} \
	cargo run --quiet -p ops --bin check_data -- $(if $(REPAIR),--repair)

# The SAM CLI sends no usage reports from here (as in .ci/run).
build: export SAM_CLI_TELEMETRY = 0
build:
	sam build

# `sam build` (arm64), then each built bootstrap answers its sample event
# from events/ under qemu-user against DynamoDB Local. CI runs it.
smoke:
	scripts/smoke-arm64.sh

clean:
	rm -rf target .aws-sam
