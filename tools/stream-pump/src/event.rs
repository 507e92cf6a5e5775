//! A stream record as Lambda's event source mapping hands it to a
//! function: `Records[]` of `{eventID, eventName, eventVersion, eventSource,
//! awsRegion, dynamodb {ApproximateCreationDateTime, Keys, NewImage,
//! OldImage, SequenceNumber, SizeBytes, StreamViewType}, eventSourceARN}`
//! (plus `userIdentity` for deletes by TTL). Attribute values are DynamoDB
//! JSON (`{"S": ..}`, binary as base64), written by serde_dynamo from the
//! SDK's types. Each record is serialised once, when read: batches are cut
//! by their size in bytes, and a redelivery sends the same bytes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodbstreams::types::Record;
use serde::Serialize;

/// One record, ready to send.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    /// Its sequence number, as DynamoDB wrote it (the `itemIdentifier` a
    /// function answers with).
    pub seq: String,
    /// ApproximateCreationDateTime, Unix seconds.
    pub created: Option<i64>,
    /// The record as one JSON object of the event's `Records`.
    pub json: String,
}

impl Pending {
    /// How long ago it was written (zero without a timestamp).
    pub fn age(&self, now: SystemTime) -> Duration {
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() as i64;
        self.created.map_or(Duration::ZERO, |at| {
            Duration::from_secs(now.saturating_sub(at).max(0) as u64)
        })
    }
}

#[derive(Serialize)]
struct LambdaRecord<'a> {
    #[serde(rename = "eventID")]
    event_id: &'a str,
    #[serde(rename = "eventName")]
    event_name: &'a str,
    #[serde(rename = "eventVersion")]
    event_version: &'a str,
    #[serde(rename = "eventSource")]
    event_source: &'a str,
    #[serde(rename = "awsRegion")]
    aws_region: &'a str,
    dynamodb: Change<'a>,
    #[serde(rename = "eventSourceARN")]
    event_source_arn: &'a str,
    #[serde(rename = "userIdentity", skip_serializing_if = "Option::is_none")]
    user_identity: Option<UserIdentity<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Change<'a> {
    /// Whole seconds, as Lambda sends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    approximate_creation_date_time: Option<i64>,
    keys: serde_dynamo::Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_image: Option<serde_dynamo::Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_image: Option<serde_dynamo::Item>,
    sequence_number: &'a str,
    size_bytes: i64,
    stream_view_type: &'a str,
}

#[derive(Serialize)]
struct UserIdentity<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(rename = "principalId")]
    principal_id: &'a str,
}

/// Why a record cannot be sent.
#[derive(Debug, PartialEq)]
pub struct Unreadable(pub String);

/// The record as Lambda would send it from the stream `stream_arn`.
pub fn pending(record: &Record, stream_arn: &str) -> Result<Pending, Unreadable> {
    let change = record
        .dynamodb()
        .ok_or_else(|| Unreadable("a record without its change".into()))?;
    let seq = change
        .sequence_number()
        .ok_or_else(|| Unreadable("a record without a sequence number".into()))?;
    let created = change.approximate_creation_date_time().map(|t| t.secs());
    let item = |m: Option<&std::collections::HashMap<String, _>>| {
        m.filter(|m| !m.is_empty())
            .map(|m| serde_dynamo::Item::from(m.clone()))
    };
    let body = LambdaRecord {
        event_id: record.event_id().unwrap_or_default(),
        event_name: record.event_name().map_or("", |n| n.as_str()),
        event_version: record.event_version().unwrap_or("1.1"),
        event_source: "aws:dynamodb",
        aws_region: record.aws_region().unwrap_or_default(),
        dynamodb: Change {
            approximate_creation_date_time: created,
            keys: item(change.keys()).unwrap_or_else(|| {
                serde_dynamo::Item::from(std::collections::HashMap::<
                    String,
                    serde_dynamo::AttributeValue,
                >::new())
            }),
            new_image: item(change.new_image()),
            old_image: item(change.old_image()),
            sequence_number: seq,
            size_bytes: change.size_bytes().unwrap_or_default(),
            stream_view_type: change.stream_view_type().map_or("", |v| v.as_str()),
        },
        event_source_arn: stream_arn,
        user_identity: record.user_identity().map(|u| UserIdentity {
            kind: u.r#type().unwrap_or_default(),
            principal_id: u.principal_id().unwrap_or_default(),
        }),
    };
    let json = serde_json::to_string(&body).map_err(|e| Unreadable(e.to_string()))?;
    Ok(Pending {
        seq: seq.to_string(),
        created,
        json,
    })
}

/// The invocation payload of `records`: `{"Records":[...]}`.
pub fn payload<'a>(records: impl IntoIterator<Item = &'a Pending>) -> String {
    let mut out = String::from("{\"Records\":[");
    for (i, r) in records.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&r.json);
    }
    out.push_str("]}");
    out
}

/// The bytes [`payload`] adds around the records: the envelope, and a
/// comma per record after the first.
pub const ENVELOPE_BYTES: usize = "{\"Records\":[]}".len();

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodbstreams::{
        primitives::{Blob, DateTime},
        types::{AttributeValue as Av, Identity, OperationType, StreamRecord, StreamViewType},
    };
    use serde_json::{Value, json};

    use super::*;

    const ARN: &str =
        "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2026-11-27T00:07:17.019";

    fn record(name: OperationType, new: bool, old: bool) -> Record {
        let keys = [
            ("pk".to_string(), Av::S("REPO#1".into())),
            ("sk".to_string(), Av::S("ISSUE#1".into())),
        ];
        let mut image: std::collections::HashMap<_, _> = keys.clone().into();
        image.insert("b".into(), Av::B(Blob::new(vec![0, 1, 255])));
        image.insert("n".into(), Av::N("7".into()));
        image.insert("ss".into(), Av::Ss(vec!["x".into()]));
        image.insert("bs".into(), Av::Bs(vec![Blob::new(vec![1])]));
        image.insert(
            "m".into(),
            Av::M(
                [(
                    "l".to_string(),
                    Av::L(vec![Av::Null(true), Av::Bool(false)]),
                )]
                .into(),
            ),
        );
        image.insert("ns".into(), Av::Ns(vec!["1".into()]));
        let mut change = StreamRecord::builder()
            .approximate_creation_date_time(DateTime::from_secs(1_795_738_020))
            .set_keys(Some(keys.into()))
            .sequence_number("000000000000000000007")
            .size_bytes(61)
            .stream_view_type(StreamViewType::NewAndOldImages);
        if new {
            change = change.set_new_image(Some(image.clone()));
        }
        if old {
            change = change.set_old_image(Some(image));
        }
        Record::builder()
            .event_id("fe1f11eb-4989-4385-a947-4452c7e66379")
            .event_name(name)
            .event_version("1.1")
            .event_source("aws:dynamodb")
            .aws_region("ddblocal")
            .dynamodb(change.build())
            .build()
    }

    fn parsed(p: &Pending) -> Value {
        serde_json::from_str(&p.json).unwrap()
    }

    #[test]
    fn a_record_is_lambdas_json() {
        let p = pending(&record(OperationType::Modify, true, true), ARN).unwrap();
        assert_eq!(
            p.seq, "000000000000000000007",
            "the number as DynamoDB wrote it"
        );
        assert_eq!(p.created, Some(1_795_738_020));
        let v = parsed(&p);
        assert_eq!(v["eventID"], "fe1f11eb-4989-4385-a947-4452c7e66379");
        assert_eq!(v["eventName"], "MODIFY");
        assert_eq!(v["eventVersion"], "1.1");
        assert_eq!(v["eventSource"], "aws:dynamodb");
        assert_eq!(v["awsRegion"], "ddblocal");
        assert_eq!(v["eventSourceARN"], ARN);
        let d = &v["dynamodb"];
        assert_eq!(d["ApproximateCreationDateTime"], 1_795_738_020);
        assert_eq!(
            d["Keys"],
            json!({"pk": {"S": "REPO#1"}, "sk": {"S": "ISSUE#1"}})
        );
        assert_eq!(d["SequenceNumber"], "000000000000000000007");
        assert_eq!(d["SizeBytes"], 61);
        assert_eq!(d["StreamViewType"], "NEW_AND_OLD_IMAGES");
        let image = &d["NewImage"];
        assert_eq!(image["b"], json!({"B": "AAH/"}), "binary as base64");
        assert_eq!(image["n"], json!({"N": "7"}));
        assert_eq!(image["ss"], json!({"SS": ["x"]}));
        assert_eq!(image["bs"], json!({"BS": ["AQ=="]}));
        assert_eq!(image["ns"], json!({"NS": ["1"]}));
        assert_eq!(
            image["m"],
            json!({"M": {"l": {"L": [{"NULL": true}, {"BOOL": false}]}}})
        );
        assert_eq!(d["OldImage"], d["NewImage"]);
        assert!(v.get("userIdentity").is_none());
    }

    #[test]
    fn images_are_left_out_when_absent_and_ttl_deletes_say_so() {
        let v = parsed(&pending(&record(OperationType::Insert, true, false), ARN).unwrap());
        assert!(v["dynamodb"].get("OldImage").is_none());
        let mut r = record(OperationType::Remove, false, true);
        r.user_identity = Some(
            Identity::builder()
                .r#type("Service")
                .principal_id("dynamodb.amazonaws.com")
                .build(),
        );
        let v = parsed(&pending(&r, ARN).unwrap());
        assert!(v["dynamodb"].get("NewImage").is_none());
        assert_eq!(v["eventName"], "REMOVE");
        assert_eq!(
            v["userIdentity"],
            json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"})
        );
    }

    #[test]
    fn a_payload_is_records_in_order_and_its_envelope_is_counted() {
        let a = pending(&record(OperationType::Insert, true, false), ARN).unwrap();
        let mut b = a.clone();
        b.json = b
            .json
            .replace("000000000000000000007", "000000000000000000008");
        let text = payload([&a, &b]);
        assert_eq!(text.len(), ENVELOPE_BYTES + a.json.len() + 1 + b.json.len());
        let v: Value = serde_json::from_str(&text).unwrap();
        let seqs: Vec<_> = v["Records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["dynamodb"]["SequenceNumber"].as_str().unwrap())
            .collect();
        assert_eq!(seqs, ["000000000000000000007", "000000000000000000008"]);
        assert_eq!(payload([]), "{\"Records\":[]}");
    }

    #[test]
    fn the_event_parses_as_the_consumer_reads_it() {
        // The same shape aws_lambda_events reads in the function: every
        // top-level field a Lambda record has.
        let v = parsed(&pending(&record(OperationType::Modify, true, true), ARN).unwrap());
        for key in [
            "eventID",
            "eventName",
            "eventVersion",
            "eventSource",
            "awsRegion",
            "dynamodb",
            "eventSourceARN",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert!(
            pending(&Record::builder().build(), ARN).is_err(),
            "a record without its change"
        );
    }

    #[test]
    fn age_is_from_the_creation_time() {
        let p = Pending {
            seq: "1".into(),
            created: Some(1_000),
            json: String::new(),
        };
        let now = UNIX_EPOCH + Duration::from_secs(1_060);
        assert_eq!(p.age(now), Duration::from_secs(60));
        assert_eq!(
            Pending {
                created: None,
                ..p.clone()
            }
            .age(now),
            Duration::ZERO
        );
        assert_eq!(
            Pending {
                created: Some(2_000),
                ..p
            }
            .age(now),
            Duration::ZERO
        );
    }
}
