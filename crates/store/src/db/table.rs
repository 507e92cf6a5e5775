//! The table definition, in one place. Bootstrap creates the table from it,
//! and a test checks that `template.yaml` declares the same keys, indexes
//! and stream.

use aws_sdk_dynamodb::{
    Client,
    types::{
        AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
        Projection, ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
    },
};

use super::DbError;

/// A global secondary index: name, partition key and sort key attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Index {
    pub name: &'static str,
    pub pk: &'static str,
    pub sk: &'static str,
}

/// Primary key attributes.
pub const PK: &str = "pk";
pub const SK: &str = "sk";

/// Generic, sparse indexes: an item appears in one only when it carries the
/// index's key attributes. `docs/data-model.md` lists what uses each.
pub const INDEXES: [Index; 2] = [
    Index {
        name: "gsi1",
        pk: "gsi1pk",
        sk: "gsi1sk",
    },
    Index {
        name: "gsi2",
        pk: "gsi2pk",
        sk: "gsi2sk",
    },
];

/// The attribute DynamoDB's TTL reads (Unix seconds): idempotency records,
/// listing cursors and the counters of failed passwords expire by it.
pub const TTL: &str = "ttl";

/// What the table's stream carries: every change with the item before and
/// after it, so the one consumer (functions/stream) can tell what changed
/// without reading the table again.
pub const STREAM_VIEW: StreamViewType = StreamViewType::NewAndOldImages;

fn stream_specification() -> Result<StreamSpecification, DbError> {
    StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(STREAM_VIEW)
        .build()
        .map_err(|e| DbError::Service(e.to_string()))
}

/// Every key attribute (all strings), as `AttributeDefinitions` lists them.
pub fn key_attributes() -> Vec<&'static str> {
    let mut names = vec![PK, SK];
    for ix in INDEXES {
        names.extend([ix.pk, ix.sk]);
    }
    names
}

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement, DbError> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(|e| DbError::Service(e.to_string()))
}

/// Creates the table (on-demand billing, with its stream) unless it exists,
/// then waits until it is active. Returns whether it was created. A table
/// that exists is left as it is: [`ensure_stream`] turns on its stream.
pub async fn create_if_missing(client: &Client, table: &str) -> Result<bool, DbError> {
    if client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .is_ok()
    {
        return Ok(false);
    }
    let build = |e: aws_sdk_dynamodb::error::BuildError| DbError::Service(e.to_string());
    let mut req = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(stream_specification()?)
        .key_schema(key(PK, KeyType::Hash)?)
        .key_schema(key(SK, KeyType::Range)?);
    for name in key_attributes() {
        req = req.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(build)?,
        );
    }
    for ix in INDEXES {
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(ix.name)
                .key_schema(key(ix.pk, KeyType::Hash)?)
                .key_schema(key(ix.sk, KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .map_err(build)?,
        );
    }
    match req.send().await {
        Ok(_) => {}
        // Someone else (a parallel test, a second bootstrap) made it first.
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_in_use_exception()) => {}
        Err(e) => {
            return Err(DbError::Service(
                aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
            ));
        }
    }
    for _ in 0..100 {
        let out = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| {
                DbError::Service(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string())
            })?;
        let status = out.table().and_then(|t| t.table_status().cloned());
        if status == Some(aws_sdk_dynamodb::types::TableStatus::Active) {
            enable_ttl(client, table).await?;
            return Ok(true);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Err(DbError::Service(format!(
        "table {table} did not become active"
    )))
}

/// What [`ensure_stream`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The stream was already on, with [`STREAM_VIEW`].
    On,
    /// It was off; it is on now.
    Enabled,
}

/// Turns on the table's stream ([`STREAM_VIEW`]) if it is off, for tables
/// made before it existed; does nothing when it is on. A stream that is on
/// with another view type is an error: DynamoDB cannot change it in place
/// (it must be turned off, then on again, which starts a new stream), and
/// that is an operator's decision.
pub async fn ensure_stream(client: &Client, table: &str) -> Result<Stream, DbError> {
    let service = |e: String| DbError::Service(e);
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| service(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string()))?;
    let current = described.table().and_then(|t| t.stream_specification());
    match current {
        Some(spec) if spec.stream_enabled() => {
            return match spec.stream_view_type() {
                Some(view) if *view == STREAM_VIEW => Ok(Stream::On),
                other => Err(service(format!(
                    "table {table} has a stream of {other:?}, not {STREAM_VIEW:?}: turn it off \
                     (aws dynamodb update-table --stream-specification StreamEnabled=false) and \
                     run this again"
                ))),
            };
        }
        _ => {}
    }
    match client
        .update_table()
        .table_name(table)
        .stream_specification(stream_specification()?)
        .send()
        .await
    {
        Ok(_) => {}
        // A parallel bootstrap enabled it first (DynamoDB refuses to enable
        // a stream twice).
        Err(e) if format!("{e:?}").contains("already has an enabled stream") => {
            return Ok(Stream::On);
        }
        Err(e) => {
            return Err(service(
                aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
            ));
        }
    }
    // The table is UPDATING until the stream is on.
    for _ in 0..100 {
        let out = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| service(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string()))?;
        let t = out.table();
        let active = t.and_then(|t| t.table_status().cloned())
            == Some(aws_sdk_dynamodb::types::TableStatus::Active);
        if active && t.and_then(|t| t.latest_stream_arn()).is_some() {
            return Ok(Stream::Enabled);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Err(service(format!(
        "table {table}: its stream did not come on"
    )))
}

async fn enable_ttl(client: &Client, table: &str) -> Result<(), DbError> {
    let spec = aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
        .attribute_name(TTL)
        .enabled(true)
        .build()
        .map_err(|e| DbError::Service(e.to_string()))?;
    match client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(spec)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        // Already on (a parallel creator got there first).
        Err(e) if format!("{e:?}").contains("already enabled") => Ok(()),
        Err(e) => Err(DbError::Service(
            aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
        )),
    }
}
