#!/usr/bin/env python3
"""Dollars per million requests of each benchmarked route, from the request
table `make bench` prints (read units, write units and sequential DynamoDB
round trips per request) and on-demand prices.

Usage: cost.py BENCH_OUTPUT.md

The Lambda duration on AWS is estimated, not measured here: a fixed
compute time plus a DynamoDB round trip per sequential wait (DynamoDB Local
on this machine answers faster than DynamoDB does in a region).
"""
import re
import sys

# US East (N. Virginia), on-demand, as published by AWS (DynamoDB prices
# since the November 2024 reduction).
PRICES = {
    "dynamodb_read_unit": 0.125 / 1e6,   # per read request unit
    "dynamodb_write_unit": 0.625 / 1e6,  # per write request unit
    "lambda_request": 0.20 / 1e6,
    "lambda_arm64_gb_second": 0.0000133334,
    "http_api_request": 1.00 / 1e6,      # API Gateway HTTP API, first 300 million
}
MEMORY_GB = 256 / 1024   # template.yaml's MemorySize
COMPUTE_MS = 2.0         # handler work besides waiting on DynamoDB
ROUND_TRIP_MS = 6.0      # one DynamoDB call in the same region


def rows(path):
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not re.match(r"^\d+ \(\d+\)$", cells[2]):
            continue
        sequential = int(cells[2].split()[0])
        yield cells[0], sequential, float(cells[3] or 0), float(cells[4] or 0)


def main():
    p = PRICES
    print("| request | est. duration ms | DynamoDB $/M | Lambda + API $/M | total $/M |")
    print("|---|---|---|---|---|")
    for label, sequential, rcu, wcu in rows(sys.argv[1]):
        ms = COMPUTE_MS + ROUND_TRIP_MS * sequential
        dynamo = (rcu * p["dynamodb_read_unit"] + wcu * p["dynamodb_write_unit"]) * 1e6
        compute = (p["lambda_request"] + p["http_api_request"]
                   + MEMORY_GB * ms / 1000 * p["lambda_arm64_gb_second"]) * 1e6
        print("| %s | %.0f | %.3f | %.3f | %.3f |" % (label, ms, dynamo, compute, dynamo + compute))
    print()
    print("Prices: %s; %d MB arm64; duration = %.0f ms + %.0f ms per sequential round trip."
          % (", ".join("%s $%g" % (k, v) for k, v in PRICES.items()), MEMORY_GB * 1024, COMPUTE_MS,
             ROUND_TRIP_MS))


if __name__ == "__main__":
    main()
