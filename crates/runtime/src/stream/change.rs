//! A stream record as the handlers see it. Lambda's DynamoDB event
//! (aws_lambda_events) holds its images as serde_dynamo items; handlers
//! read them as this crate's [`Item`] (the SDK's `AttributeValue` map), the
//! same type every read of the table returns, so their decoding helpers
//! (`db::from_item`, `db::text`, ...) work on images unchanged. serde_dynamo
//! converts between the two, attribute type by attribute type.

use aws_lambda_events::dynamodb::{Event, EventRecord};

use crate::db::{Item, table};

/// What happened to the item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Put where nothing was.
    Insert,
    /// Put over, or updated.
    Modify,
    /// Deleted (also by TTL).
    Remove,
}

impl ChangeKind {
    /// The record's `eventName`.
    pub fn parse(event_name: &str) -> Option<Self> {
        match event_name {
            "INSERT" => Some(Self::Insert),
            "MODIFY" => Some(Self::Modify),
            "REMOVE" => Some(Self::Remove),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Insert => "INSERT",
            Self::Modify => "MODIFY",
            Self::Remove => "REMOVE",
        }
    }
}

/// One change to one item, in stream order.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The record's sequence number, left-padded with zeros to 40 digits, so that string order is stream order.
    pub seq: String,
    pub kind: ChangeKind,
    pub keys: Item,
    pub old: Option<Item>,
    pub new: Option<Item>,
    /// ApproximateCreationDateTime, Unix milliseconds (0 if absent).
    pub at_ms: i64,
}

impl Change {
    /// The item's partition key (empty if the keys lack it).
    /// The item was deleted (it was there, and is no longer).
    pub fn removed(&self) -> bool {
        self.old.is_some() && self.new.is_none()
    }

    pub fn pk(&self) -> &str {
        key(&self.keys, table::PK)
    }

    /// The item's sort key (empty if the keys lack it).
    pub fn sk(&self) -> &str {
        key(&self.keys, table::SK)
    }

    /// The item after the change, or before it for a removal.
    pub fn image(&self) -> Option<&Item> {
        self.new.as_ref().or(self.old.as_ref())
    }
}

fn key<'a>(keys: &'a Item, name: &str) -> &'a str {
    keys.get(name)
        .and_then(|v| v.as_s().ok())
        .map_or("", String::as_str)
}

/// How many digits DynamoDB's sequence numbers have at most (its API:
/// 21 to 40).
const SEQ_DIGITS: usize = 40;

/// `seq` left-padded with zeros to 40 digits.
pub fn pad_seq(seq: &str) -> String {
    format!("{seq:0>SEQ_DIGITS$}")
}

/// A padded sequence number without its padding: the number as DynamoDB
/// writes it on AWS (no leading zeros). DynamoDB Local writes its numbers
/// with leading zeros (`000000000000000000001`); [`run`](super::run) maps
/// what [`dispatch`](super::dispatch) reports back to the record's own
/// identifier, so Lambda (and the local pump) get it exactly as sent.
pub fn unpad_seq(seq: &str) -> String {
    let digits = seq.trim_start_matches('0');
    if digits.is_empty() {
        "0".into()
    } else {
        digits.into()
    }
}

/// A record the consumer cannot read as a change.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("record {index}: no sequence number")]
    NoSequenceNumber { index: usize },
    #[error("record {seq}: unknown eventName {name:?}")]
    UnknownEvent { seq: String, name: String },
}

/// The event's records as changes, in the event's (stream) order.
pub fn changes(event: Event) -> Result<Vec<Change>, ConvertError> {
    event
        .records
        .into_iter()
        .enumerate()
        .map(|(index, record)| change(index, record))
        .collect()
}

fn change(index: usize, record: EventRecord) -> Result<Change, ConvertError> {
    let r = record.change;
    let seq = r
        .sequence_number
        .filter(|s| !s.is_empty())
        .ok_or(ConvertError::NoSequenceNumber { index })?;
    let kind = ChangeKind::parse(&record.event_name).ok_or_else(|| ConvertError::UnknownEvent {
        seq: seq.clone(),
        name: record.event_name.clone(),
    })?;
    // Absent images arrive as empty maps (KEYS_ONLY streams, the old image
    // of an insert, the new image of a removal).
    let image = |item: serde_dynamo::Item| (!item.is_empty()).then(|| Item::from(item));
    Ok(Change {
        seq: pad_seq(&seq),
        kind,
        keys: r.keys.into(),
        old: image(r.old_image),
        new: image(r.new_image),
        at_ms: r.approximate_creation_date_time.timestamp_millis(),
    })
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::{primitives::Blob, types::AttributeValue as Av};
    use serde_json::json;

    use super::*;

    fn event(records: serde_json::Value) -> Event {
        serde_json::from_value(json!({ "Records": records })).expect("a DynamoDB event")
    }

    fn record(name: &str, seq: &str, dynamodb: serde_json::Value) -> serde_json::Value {
        let mut d = dynamodb;
        d["SequenceNumber"] = json!(seq);
        d["SizeBytes"] = json!(26);
        d["StreamViewType"] = json!("NEW_AND_OLD_IMAGES");
        json!({
            "eventID": format!("id-{seq}"),
            "eventName": name,
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026-01-01T00:00:00.000",
            "dynamodb": d,
        })
    }

    /// Every attribute type DynamoDB has, as the event writes it (binary
    /// as base64, numbers as strings), and as the SDK holds it.
    #[test]
    fn every_attribute_type_converts() {
        let image = json!({
            "pk": {"S": "REPO#1"},
            "sk": {"S": "ISSUE#00000000000000000007"},
            "n": {"N": "-12.50"},
            "b": {"B": "AAH/"},
            "yes": {"BOOL": true},
            "nothing": {"NULL": true},
            "l": {"L": [{"S": "x"}, {"N": "1"}, {"L": []}]},
            "m": {"M": {"inner": {"M": {"deep": {"BOOL": false}}}, "s": {"S": ""}}},
            "ss": {"SS": ["a", "b"]},
            "ns": {"NS": ["1", "2.5"]},
            "bs": {"BS": ["AQ==", "Ag=="]},
        });
        let e = event(json!([record(
            "INSERT",
            "111",
            json!({"Keys": {"pk": image["pk"], "sk": image["sk"]}, "NewImage": image}),
        )]));
        let c = changes(e).unwrap().remove(0);
        let new = c.new.as_ref().expect("a new image");
        let want: [(&str, Av); 11] = [
            ("pk", Av::S("REPO#1".into())),
            ("sk", Av::S("ISSUE#00000000000000000007".into())),
            ("n", Av::N("-12.50".into())),
            ("b", Av::B(Blob::new(vec![0, 1, 255]))),
            ("yes", Av::Bool(true)),
            ("nothing", Av::Null(true)),
            (
                "l",
                Av::L(vec![Av::S("x".into()), Av::N("1".into()), Av::L(vec![])]),
            ),
            (
                "m",
                Av::M(
                    [
                        (
                            "inner".to_string(),
                            Av::M([("deep".to_string(), Av::Bool(false))].into()),
                        ),
                        ("s".to_string(), Av::S(String::new())),
                    ]
                    .into(),
                ),
            ),
            ("ss", Av::Ss(vec!["a".into(), "b".into()])),
            ("ns", Av::Ns(vec!["1".into(), "2.5".into()])),
            ("bs", Av::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2])])),
        ];
        assert_eq!(new.len(), want.len());
        for (name, value) in want {
            assert_eq!(new.get(name), Some(&value), "{name}");
        }
        assert_eq!((c.pk(), c.sk()), ("REPO#1", "ISSUE#00000000000000000007"));
        assert_eq!(c.keys.len(), 2);
        assert_eq!(c.old, None, "an insert has no old image");
        assert_eq!(c.image(), c.new.as_ref());
    }

    #[test]
    fn kinds_images_order_and_padding() {
        let keys = json!({"pk": {"S": "P"}, "sk": {"S": "S"}});
        let v1 = json!({"pk": {"S": "P"}, "sk": {"S": "S"}, "v": {"N": "1"}});
        let v2 = json!({"pk": {"S": "P"}, "sk": {"S": "S"}, "v": {"N": "2"}});
        let e = event(json!([
            record(
                "INSERT",
                "000000000000000000001",
                json!({"ApproximateCreationDateTime": 1764000000, "Keys": keys, "NewImage": v1})
            ),
            record(
                "MODIFY",
                "000000000000000000002",
                json!({"ApproximateCreationDateTime": 1764000060, "Keys": keys, "NewImage": v2, "OldImage": v1})
            ),
            record(
                "REMOVE",
                "4421584500000000017450439091",
                json!({"Keys": keys, "OldImage": v2})
            ),
        ]));
        let cs = changes(e).unwrap();
        let kinds: Vec<_> = cs.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove]
        );
        assert_eq!(cs[0].seq, format!("{}1", "0".repeat(39)));
        assert_eq!(
            cs[2].seq,
            format!("{}4421584500000000017450439091", "0".repeat(12))
        );
        assert!(
            cs.windows(2).all(|w| w[0].seq < w[1].seq),
            "string order is stream order"
        );
        assert_eq!(cs[0].at_ms, 1_764_000_000_000);
        assert_eq!(cs[1].at_ms, 1_764_000_060_000);
        assert_eq!(cs[2].at_ms, 0, "no ApproximateCreationDateTime");
        // MODIFY has both images; image() prefers the new one.
        let v = |c: &Change, which: Option<&Item>| {
            which
                .and_then(|i| i.get("v"))
                .map(|v| v.as_n().unwrap().clone())
                .unwrap_or_else(|| panic!("{:?}", c.kind))
        };
        assert_eq!(v(&cs[1], cs[1].old.as_ref()), "1");
        assert_eq!(v(&cs[1], cs[1].image()), "2");
        // REMOVE: no new image; image() is the old one.
        assert!(cs[2].new.is_none());
        assert_eq!(v(&cs[2], cs[2].image()), "2");
    }

    #[test]
    fn keys_only_records_and_missing_keys() {
        let e = event(json!([record(
            "REMOVE",
            "5",
            json!({"Keys": {"pk": {"S": "P"}}, "NewImage": null})
        )]));
        let c = changes(e).unwrap().remove(0);
        assert_eq!((c.pk(), c.sk()), ("P", ""));
        assert_eq!(
            (c.old.as_ref(), c.new.as_ref(), c.image()),
            (None, None, None)
        );
    }

    #[test]
    fn unreadable_records_are_errors() {
        let unknown = event(json!([record("UPSERT", "9", json!({"Keys": {}}))]));
        assert!(matches!(
            changes(unknown),
            Err(ConvertError::UnknownEvent { ref name, .. }) if name == "UPSERT"
        ));
        let mut no_seq = record("INSERT", "", json!({"Keys": {}}));
        no_seq["dynamodb"]
            .as_object_mut()
            .unwrap()
            .remove("SequenceNumber");
        assert!(matches!(
            changes(event(json!([no_seq]))),
            Err(ConvertError::NoSequenceNumber { index: 0 })
        ));
        assert_eq!(changes(event(json!([]))).unwrap(), vec![]);
    }

    #[test]
    fn padding_round_trips_aws_numbers() {
        for seq in ["1", "111300000000012585567470", &"9".repeat(40)] {
            assert_eq!(pad_seq(seq).len(), 40);
            assert_eq!(unpad_seq(&pad_seq(seq)), seq);
        }
        assert_eq!(unpad_seq(&pad_seq("0")), "0");
        // DynamoDB Local's leading zeros are not kept (run() maps back).
        assert_eq!(unpad_seq(&pad_seq("000000000000000000042")), "42");
        for kind in [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove] {
            assert_eq!(ChangeKind::parse(kind.name()), Some(kind));
        }
    }
}
