#!/usr/bin/env python3
"""Checks that samconfig.example.toml deploys as written: every entry of its
`parameter_overrides` goes through the SAM CLI's own parser (the pinned SAM
CLI in .venv: `samcli.cli.types.CfnParameterOverridesType`), names a
parameter of template.yaml and satisfies that parameter's constraints
(AllowedPattern, AllowedValues, lengths, MinValue/MaxValue). An override
left empty is refused by SAM, so the example lists only what it sets; SAM
keeps the deployed value (or the default) of the rest.

Run with the virtualenv's Python: `.venv/bin/python scripts/check-samconfig.py`
(.ci/run does, after installing the SAM CLI)."""
import re
import sys
import tomllib
from pathlib import Path

from samcli.cli.types import CfnParameterOverridesType
from samcli.yamlhelper import yaml_parse

ROOT = Path(__file__).resolve().parent.parent


def problems_of(name, value, spec):
    """What is wrong with `value` for the parameter `spec` (CloudFormation's
    rules), as sentences."""
    out = []
    if spec.get("Type") == "Number":
        try:
            number = float(value)
        except ValueError:
            return [f"{name}={value!r} is not a number"]
        if "MinValue" in spec and number < float(spec["MinValue"]):
            out.append(f"{name}={value} is below MinValue {spec['MinValue']}")
        if "MaxValue" in spec and number > float(spec["MaxValue"]):
            out.append(f"{name}={value} is above MaxValue {spec['MaxValue']}")
        return out
    if "AllowedValues" in spec and value not in [str(v) for v in spec["AllowedValues"]]:
        out.append(f"{name}={value!r} is not one of {spec['AllowedValues']}")
    if "AllowedPattern" in spec and not re.fullmatch(spec["AllowedPattern"], value):
        out.append(f"{name}={value!r} does not match {spec['AllowedPattern']}")
    if "MinLength" in spec and len(value) < int(spec["MinLength"]):
        out.append(f"{name}={value!r} is shorter than {spec['MinLength']}")
    if "MaxLength" in spec and len(value) > int(spec["MaxLength"]):
        out.append(f"{name}={value!r} is longer than {spec['MaxLength']}")
    return out


def main():
    config = tomllib.loads((ROOT / "samconfig.example.toml").read_text())
    entries = config["default"]["deploy"]["parameters"]["parameter_overrides"]
    # The commented-out examples too: an operator uncomments them as shown.
    shown = re.findall(r'^#\s+("[^"]*"),$', (ROOT / "samconfig.example.toml").read_text(), re.M)
    entries = entries + [tomllib.loads(f"v = {s}")["v"] for s in shown]
    parameters = yaml_parse((ROOT / "template.yaml").read_text())["Parameters"]
    parser = CfnParameterOverridesType()
    problems = []
    for entry in entries:
        try:
            parsed = parser.convert(entry, None, None)
        except Exception as e:  # click's BadParameter, as `sam deploy` reports it
            problems.append(f"SAM refuses {entry!r}: {getattr(e, 'message', e)}")
            continue
        for name, value in parsed.items():
            if name not in parameters:
                problems.append(f"{name} is not a parameter of template.yaml")
                continue
            problems.extend(problems_of(name, value, parameters[name]))
    for p in problems:
        print(f"samconfig.example.toml: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"samconfig.example.toml: {len(entries)} overrides ({len(shown)} commented out), each parsed by SAM and within the template's constraints")


if __name__ == "__main__":
    main()
