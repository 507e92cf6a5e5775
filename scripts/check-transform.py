#!/usr/bin/env python3
"""Transforms template.yaml offline with the pinned SAM CLI's translator (what
CloudFormation's AWS::Serverless transform does at deploy time) and checks
what only the transformed template shows:

- every function publishes versions behind a `live` alias that CodeDeploy
  moves (a deployment group per function, rolled back on its alarms, the
  strategy chosen by DeploymentStrategy, all at once with Alarms=off);
- every HTTP route and the stream mapping invoke the alias, not $LATEST;
- the search route's own throttle and the execute-api switch reach the
  API's stage and body.

`--show` prints the CodeDeploy resources and one alias, as a deploy creates
them. Run with the virtualenv's Python: `.venv/bin/python
scripts/check-transform.py` (.ci/run does)."""
import copy
import json
import os
import sys
from pathlib import Path

from samcli.yamlhelper import yaml_parse
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator

# The translator resolves the region's pseudo parameter from the environment.
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

ROOT = Path(__file__).resolve().parent.parent


def transformed():
    template = yaml_parse((ROOT / "template.yaml").read_text())
    for res in template["Resources"].values():
        if res["Type"] == "AWS::Serverless::Function":
            # The translator wants an uploaded artifact, as `sam deploy`
            # makes of the local build.
            res["Properties"]["CodeUri"] = "s3://bucket/key.zip"
    translator = Translator(managed_policy_map={}, sam_parser=Parser())
    return translator.translate(
        sam_template=copy.deepcopy(template),
        parameter_values={"AWS::Region": "us-east-1", "AWS::Partition": "aws"},
        get_managed_policy_map=lambda: {},
    )


def of_type(t, ty):
    return {k: r for k, r in t["Resources"].items() if r["Type"] == ty}


def evaluate(expr, t, params):
    """A condition's value for the given parameter values (the intrinsics
    the template's conditions use)."""
    if not isinstance(expr, dict):
        return expr
    (fn, arg), = expr.items()
    if fn == "Ref":
        return params[arg]
    if fn == "Condition":
        return evaluate(t["Conditions"][arg], t, params)
    if fn == "Fn::Equals":
        return str(evaluate(arg[0], t, params)) == str(evaluate(arg[1], t, params))
    if fn == "Fn::Not":
        return not evaluate(arg[0], t, params)
    if fn == "Fn::And":
        return all(evaluate(a, t, params) for a in arg)
    if fn == "Fn::Or":
        return any(evaluate(a, t, params) for a in arg)
    raise ValueError(f"condition function {fn} is not evaluated here")


def created(t, **overrides):
    """How many resources a deploy with the parameters' defaults (and these
    overrides) creates."""
    params = {k: str(p.get("Default", "")) for k, p in t["Parameters"].items()}
    params.update(overrides)
    return sum(
        1
        for r in t["Resources"].values()
        if "Condition" not in r or evaluate(t["Conditions"][r["Condition"]], t, params)
    )


def problems(t):
    out = []
    # docs/operations.md, "What the stack creates", quotes the counts.
    guide = (ROOT / "docs" / "operations.md").read_text()
    default, with_email = created(t), created(t, AlarmEmail="ops@example.com")
    said = f"{default} resources with the default parameters, {with_email} with `AlarmEmail`"
    if said not in " ".join(guide.split()):
        out.append(f"docs/operations.md does not say: {said}")
    functions = of_type(t, "AWS::Lambda::Function")
    aliases = of_type(t, "AWS::Lambda::Alias")
    groups = of_type(t, "AWS::CodeDeploy::DeploymentGroup")
    if len(of_type(t, "AWS::CodeDeploy::Application")) != 1:
        out.append("one CodeDeploy application")
    for fn in functions:
        alias_id = f"{fn}Aliaslive"
        alias = aliases.get(alias_id)
        if alias is None:
            out.append(f"{fn}: no live alias")
            continue
        policy = alias.get("UpdatePolicy", {}).get("CodeDeployLambdaAliasUpdate", {})
        if policy.get("DeploymentGroupName", {}).get("Ref") != f"{fn}DeploymentGroup":
            out.append(f"{fn}: its alias is not moved by CodeDeploy")
        group = groups.get(f"{fn}DeploymentGroup", {}).get("Properties", {})
        if not group.get("AutoRollbackConfiguration", {}).get("Enabled"):
            out.append(f"{fn}: no automatic rollback")
        alarms = group.get("AlarmConfiguration", {}).get("Fn::If")
        if not alarms or alarms[0] != "HasAlarms":
            out.append(f"{fn}: rollback alarms are not those of Alarms=on")
        else:
            names = [a["Name"] for a in alarms[1]["Alarms"]]
            if {"Ref": f"{fn}Alarm"} not in names:
                out.append(f"{fn}: its own alarm does not roll it back")
            if alarms[2] != {}:
                out.append(f"{fn}: alarms remain with Alarms=off")
        strategy = group.get("DeploymentConfigName", {}).get("Fn::If")
        if not strategy or strategy[0] != "HasAlarms" or strategy[2] != {
            "Fn::Sub": ["CodeDeployDefault.Lambda${ConfigName}", {"ConfigName": "AllAtOnce"}]
        }:
            out.append(f"{fn}: the strategy is not DeploymentStrategy, AllAtOnce without alarms")
    for pid, perm in of_type(t, "AWS::Lambda::Permission").items():
        target = perm["Properties"]["FunctionName"]
        if not (isinstance(target, dict) and target.get("Ref", "").endswith("Aliaslive")):
            out.append(f"{pid}: invokes {target}, not the alias")
    for mid, m in of_type(t, "AWS::Lambda::EventSourceMapping").items():
        target = m["Properties"]["FunctionName"]
        if not (isinstance(target, dict) and target.get("Ref", "").endswith("Aliaslive")):
            out.append(f"{mid}: the stream invokes {target}, not the alias")
    (api_id, api), = of_type(t, "AWS::ApiGatewayV2::Api").items()
    body = api["Properties"]["Body"]
    for path, methods in body["paths"].items():
        for method, op in methods.items():
            uri = json.dumps(op.get("x-amazon-apigateway-integration", {}).get("uri"))
            if "Aliaslive" not in uri:
                out.append(f"{method} {path}: integration {uri} is not an alias")
    switch = [
        s.get("x-amazon-apigateway-endpoint-configuration", {}).get("disableExecuteApiEndpoint")
        for s in body.get("servers", [])
    ]
    if switch != [{"Fn::If": ["DisablesDefaultEndpoint", True, False]}]:
        out.append(f"{api_id}: the execute-api endpoint is not switched by DefaultEndpoint")
    (_, stage), = of_type(t, "AWS::ApiGatewayV2::Stage").items()
    search = stage["Properties"].get("RouteSettings", {}).get("GET /api/v1/repos/issues/search", {})
    if search.get("ThrottlingRateLimit") != {"Ref": "SearchThrottlingRateLimit"}:
        out.append("the search route has no throttle of its own on the stage")
    return out


def main():
    t = transformed()
    if "--show" in sys.argv:
        shown = {
            k: r
            for k, r in t["Resources"].items()
            if r["Type"].startswith("AWS::CodeDeploy::")
            or k in ("CodeDeployServiceRole", "IssuesFunctionAliaslive")
        }
        print(json.dumps(shown, indent=1, sort_keys=True))
    found = problems(t)
    for p in found:
        print(f"check-transform: {p}", file=sys.stderr)
    if found:
        sys.exit(1)
    counts = {}
    for r in t["Resources"].values():
        counts[r["Type"]] = counts.get(r["Type"], 0) + 1
    print(
        "check-transform: ok:",
        ", ".join(f"{n} {ty}" for ty, n in sorted(counts.items()) if "CodeDeploy" in ty or "Alias" in ty or "Version" in ty),
    )


if __name__ == "__main__":
    main()
