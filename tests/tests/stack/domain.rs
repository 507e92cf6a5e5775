//! A custom domain and the root URL.

use serde_yaml::Value as Yaml;

use super::{reference, tagged, template};

/// A custom domain: API Gateway's regional domain with the operator's
/// certificate, mapped to the stage; the root URL follows RootUrl, else the
/// domain; the execute-api URL can be switched off, and only with a domain.
#[test]
fn a_custom_domain_gets_its_resources_and_the_root_url() {
    let t = template();
    let domain = &t["Resources"]["ApiDomain"];
    assert_eq!(
        domain["Type"].as_str(),
        Some("AWS::ApiGatewayV2::DomainName")
    );
    assert_eq!(domain["Condition"].as_str(), Some("HasDomain"));
    let p = &domain["Properties"];
    assert_eq!(reference(&p["DomainName"]), Some("DomainName"));
    let config = &p["DomainNameConfigurations"][0];
    assert_eq!(
        reference(&config["CertificateArn"]),
        Some("DomainCertificateArn")
    );
    assert_eq!(config["EndpointType"].as_str(), Some("REGIONAL"));
    assert_eq!(config["SecurityPolicy"].as_str(), Some("TLS_1_2"));
    let mapping = &t["Resources"]["ApiDomainMapping"];
    assert_eq!(
        mapping["Type"].as_str(),
        Some("AWS::ApiGatewayV2::ApiMapping")
    );
    assert_eq!(mapping["Condition"].as_str(), Some("HasDomain"));
    let p = &mapping["Properties"];
    assert_eq!(reference(&p["ApiId"]), Some("Api"));
    assert_eq!(reference(&p["DomainName"]), Some("ApiDomain"));
    assert_eq!(p["Stage"].as_str(), Some("$default"));
    let switch = tagged(
        &t["Resources"]["Api"]["Properties"]["DisableExecuteApiEndpoint"],
        "If",
    )
    .and_then(Yaml::as_sequence)
    .unwrap();
    assert_eq!(switch[0].as_str(), Some("DisablesDefaultEndpoint"));
    let condition = serde_yaml::to_string(&t["Conditions"]["DisablesDefaultEndpoint"]).unwrap();
    assert!(condition.contains("HasDomain"), "off only with a domain");
    for rule in ["DomainNeedsCertificate", "DefaultEndpointOffNeedsDomain"] {
        assert!(t["Rules"].get(rule).is_some(), "{rule}");
    }
    // RootUrl, else https://<domain>/, else empty (the request's own
    // API Gateway domain).
    let root = tagged(
        &t["Globals"]["Function"]["Environment"]["Variables"]["ROOT_URL"],
        "If",
    )
    .and_then(Yaml::as_sequence)
    .unwrap();
    assert_eq!(root[0].as_str(), Some("HasRootUrl"));
    assert_eq!(reference(&root[1]), Some("RootUrl"));
    let fallback = tagged(&root[2], "If").and_then(Yaml::as_sequence).unwrap();
    assert_eq!(fallback[0].as_str(), Some("HasDomain"));
    assert_eq!(
        tagged(&fallback[1], "Sub").and_then(Yaml::as_str),
        Some("https://${DomainName}/")
    );
    assert_eq!(fallback[2].as_str(), Some(""));
    assert_eq!(
        t["Outputs"]["RegionalDomainName"]["Condition"].as_str(),
        Some("HasDomain")
    );
}
