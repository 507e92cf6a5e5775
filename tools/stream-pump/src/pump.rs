//! The poll loop: what Lambda's event source mapping does for the stream
//! function, against DynamoDB Local. Each cycle:
//!
//! 1. when due (every few seconds, when a shard ended, or when a `/settle`
//!    waits), finds the table's stream (`DescribeTable`'s LatestStreamArn)
//!    and lists its shards (`DescribeStream`, page by page);
//! 2. for every shard whose parent is done (or gone), in turn: delivers
//!    what it has read, batch by batch, and reads on (`GetRecords` from its
//!    iterator: `TRIM_HORIZON`, or after the last record done), until a read
//!    finds nothing new, the shard ends, or a batch is backing off before
//!    its redelivery;
//! 3. counts as settled if every shard was read to its end with nothing
//!    pending (what `/settle` waits for).
//!
//! Then it waits the poll interval (less when a redelivery is due; a
//! `/settle` request wakes it), unless the cycle delivered a batch: then
//! the next cycle starts at once, as the event source mapping invokes the
//! function again as soon as it returned while records wait.

use std::{
    collections::HashSet,
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use aws_sdk_dynamodbstreams::types::ShardIteratorType;

use crate::{
    checkpoint::{self, Checkpoint, Mark},
    event,
    invoke::Invoker,
    mapping::{self, MAXIMUM_RETRY_ATTEMPTS},
    shard::{Outcome, Shard, ready},
    status::Status,
};

/// Most records one `GetRecords` returns (DynamoDB Streams' maximum).
const READ_LIMIT: usize = 1000;

pub struct Settings {
    pub table: String,
    pub endpoint: Option<String>,
    pub invoke_url: String,
    /// Wait between cycles when idle.
    pub poll: Duration,
    /// Re-list the shards at least this often.
    pub relist: Duration,
    pub checkpoint: Option<checkpoint::File>,
}

pub struct Pump {
    settings: Settings,
    streams: aws_sdk_dynamodbstreams::Client,
    invoker: Invoker,
    status: Arc<Status>,
    stream_arn: Option<String>,
    shards: Vec<Shard>,
    listed_at: Option<Instant>,
    /// A shard ended since the last listing: its children are to be found.
    list_now: bool,
    /// Batches delivered so far (a cycle that adds one found records).
    delivered: u64,
}

/// What one cycle found.
#[derive(Debug, Default)]
struct Cycle {
    error: Option<String>,
    /// A shard left unread to its end, or with records pending.
    unsettled: bool,
}

impl Pump {
    pub async fn new(settings: Settings, status: Arc<Status>) -> Self {
        let config = sdk_config(settings.endpoint.as_deref()).await;
        Self {
            streams: aws_sdk_dynamodbstreams::Client::new(&config),
            invoker: Invoker::new(settings.invoke_url.clone()),
            settings,
            status,
            stream_arn: None,
            shards: Vec::new(),
            listed_at: None,
            list_now: false,
            delivered: 0,
        }
    }

    /// Polls until the process ends.
    pub async fn run(mut self) {
        loop {
            // Held (`GET /hold`): deliver nothing until the hold ends.
            if let Some(left) = self.status.held_for() {
                tokio::select! {
                    _ = tokio::time::sleep(left) => {}
                    _ = self.status.wake.notified() => {}
                }
                continue;
            }
            let id = self.status.cycle_started();
            let delivered = self.delivered;
            let cycle = self.cycle().await;
            if let Some(e) = &cycle.error {
                tracing::warn!(error = %e, "stream-pump cycle");
                self.status.update(|s| s.last_error = Some(e.clone()));
            } else if !cycle.unsettled {
                self.status.cycle_settled(id);
            }
            let now = Instant::now();
            self.status.update(|s| {
                s.shards = self.shards.len();
                s.pending_records = self.shards.iter().map(|sh| sh.buffer.len()).sum();
                s.backing_off = self
                    .shards
                    .iter()
                    .filter(|sh| sh.backing_off(now))
                    .map(|sh| sh.id.clone())
                    .collect();
            });
            // Busy: more records are likely waiting, read on at once.
            let mut wait = if self.delivered != delivered && cycle.error.is_none() {
                Duration::ZERO
            } else {
                self.settings.poll
            };
            if let Some(at) = self.shards.iter().filter_map(Shard::retry_at).min() {
                wait = wait.min(at.saturating_duration_since(now));
            }
            // A cycle that ended on an error waits too, so a database that
            // is down is not hammered.
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = self.status.wake.notified() => {}
            }
        }
    }

    async fn cycle(&mut self) -> Cycle {
        let mut cycle = Cycle::default();
        let due = self
            .listed_at
            .is_none_or(|at| at.elapsed() >= self.settings.relist);
        let list =
            self.stream_arn.is_none() || due || self.list_now || self.status.settle_waiting();
        if list && let Err(e) = self.list().await {
            cycle.error = Some(e);
            return cycle;
        }
        let Some(arn) = self.stream_arn.clone() else {
            cycle.error = Some(format!("table {} has no stream", self.settings.table));
            return cycle;
        };
        // Children become ready as their parents finish: go round until a
        // pass finishes no shard.
        let mut visited = HashSet::new();
        loop {
            let finished: HashSet<&str> = self
                .shards
                .iter()
                .filter(|s| s.finished())
                .map(|s| s.id.as_str())
                .collect();
            let todo: Vec<String> = ready(&self.shards, &finished)
                .into_iter()
                .filter(|id| !visited.contains(*id))
                .map(str::to_string)
                .collect();
            if todo.is_empty() {
                break;
            }
            for id in todo {
                visited.insert(id.clone());
                let Some(i) = self.shards.iter().position(|s| s.id == id) else {
                    continue;
                };
                if let Err(e) = self.drain(i, &arn).await {
                    cycle.error = Some(e);
                    return cycle;
                }
            }
        }
        let now = Instant::now();
        cycle.unsettled = self.shards.iter().any(|s| {
            !s.buffer.is_empty() || s.backing_off(now) || !(s.finished() || visited.contains(&s.id))
        });
        cycle
    }

    /// Delivers and reads shard `i` until it is read to its current end
    /// (a read returned less than it could: nothing written before that
    /// read is left), ends, or backs off. Writes that keep coming while it
    /// delivers wait for the next cycle, so a cycle ends even while the
    /// table is busy, and `/settle` does not wait for a quiet moment.
    async fn drain(&mut self, i: usize, arn: &str) -> Result<(), String> {
        let mut caught_up = false;
        loop {
            if !self.shards[i].buffer.is_empty() {
                if self.shards[i].backing_off(Instant::now()) {
                    return Ok(());
                }
                self.deliver(i).await;
                continue;
            }
            if self.shards[i].exhausted || caught_up {
                return Ok(());
            }
            caught_up = self.read(i, arn).await? < READ_LIMIT;
        }
    }

    /// One `GetRecords` of shard `i` into its buffer: how many records.
    async fn read(&mut self, i: usize, arn: &str) -> Result<usize, String> {
        for _ in 0..2 {
            let iterator = match self.shards[i].iterator.clone() {
                Some(it) => it,
                None => match self.iterator(i, arn).await? {
                    Some(it) => it,
                    None => return Ok(0),
                },
            };
            let out = match self
                .streams
                .get_records()
                .shard_iterator(iterator)
                .limit(READ_LIMIT as i32)
                .send()
                .await
            {
                Ok(out) => out,
                Err(e) => {
                    let service = e.as_service_error();
                    if service.is_some_and(|s| s.is_expired_iterator_exception()) {
                        // Iterators last 15 minutes: get a new one where
                        // this one was.
                        self.shards[i].iterator = None;
                        continue;
                    }
                    if service.is_some_and(|s| s.is_trimmed_data_access_exception()) {
                        tracing::error!(shard = %self.shards[i].id, "records past the stream's retention were never delivered");
                        self.shards[i].iterator = None;
                        self.shards[i].after = None;
                        continue;
                    }
                    if service.is_some_and(|s| s.is_resource_not_found_exception()) {
                        self.list_now = true;
                    }
                    return Err(format!("GetRecords: {}", display(&e)));
                }
            };
            let shard = &mut self.shards[i];
            shard.iterator = out.next_shard_iterator().map(str::to_string);
            if shard.iterator.is_none() {
                shard.exhausted = true;
                self.list_now = true;
            }
            let n = out.records().len();
            let mut filtered = 0;
            for r in out.records() {
                let pk = r
                    .dynamodb()
                    .and_then(|d| d.keys())
                    .and_then(|k| k.get("pk"))
                    .and_then(|v| v.as_s().ok())
                    .map_or("", String::as_str);
                if !mapping::passes_filter(pk) {
                    filtered += 1;
                    continue;
                }
                match event::pending(r, arn) {
                    Ok(p) => shard.buffer.push_back(p),
                    Err(e) => {
                        tracing::error!(shard = %shard.id, error = ?e, "a stream record that cannot be delivered")
                    }
                }
            }
            if filtered > 0 {
                self.status
                    .update(|s| s.records_filtered += filtered as u64);
            }
            return Ok(n);
        }
        Err("GetRecords: the iterator kept expiring".into())
    }

    /// A new iterator for shard `i`: after its last record done, else from
    /// the trim horizon. `None`: the shard is gone.
    async fn iterator(&mut self, i: usize, arn: &str) -> Result<Option<String>, String> {
        let shard = &self.shards[i];
        let mut after = shard.after.clone();
        for _ in 0..2 {
            let req = self
                .streams
                .get_shard_iterator()
                .stream_arn(arn)
                .shard_id(&shard.id);
            let req = match &after {
                Some(seq) => req
                    .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                    .sequence_number(seq),
                None => req.shard_iterator_type(ShardIteratorType::TrimHorizon),
            };
            match req.send().await {
                Ok(out) => {
                    let it = out.shard_iterator().map(str::to_string);
                    self.shards[i].iterator = it.clone();
                    return Ok(it);
                }
                Err(e) => {
                    let service = e.as_service_error();
                    if after.is_some()
                        && service.is_some_and(|s| s.is_trimmed_data_access_exception())
                    {
                        tracing::error!(shard = %shard.id, after = ?after, "the checkpoint is past the stream's retention: from the trim horizon");
                        after = None;
                        continue;
                    }
                    if service.is_some_and(|s| s.is_resource_not_found_exception()) {
                        tracing::warn!(shard = %shard.id, "shard gone");
                        self.shards[i].exhausted = true;
                        self.list_now = true;
                        return Ok(None);
                    }
                    return Err(format!("GetShardIterator: {}", display(&e)));
                }
            }
        }
        Err("GetShardIterator: trimmed".into())
    }

    /// Sends shard `i`'s next batch and applies the answer.
    async fn deliver(&mut self, i: usize) {
        let (expired, n) = self.shards[i].next_batch(SystemTime::now());
        if !expired.is_empty() {
            tracing::error!(
                shard = %self.shards[i].id,
                records = expired.len(),
                first = %expired[0].seq,
                last = %expired[expired.len() - 1].seq,
                "SKIPPED records older than MaximumRecordAgeInSeconds (Lambda sends them to the on-failure destination)"
            );
            let count = expired.len() as u64;
            self.status.update(|s| s.skipped_records += count);
            self.save();
        }
        if n == 0 {
            return;
        }
        let retry = self.shards[i].attempts() > 0;
        let payload = event::payload(self.shards[i].batch(n));
        let seqs: Vec<String> = self.shards[i].batch(n).map(|r| r.seq.clone()).collect();
        let refs: Vec<&str> = seqs.iter().map(String::as_str).collect();
        self.status.update(|s| {
            s.invocations += 1;
            if retry {
                s.retries += 1;
            }
        });
        let outcome = self.invoker.invoke(payload, &refs).await;
        self.delivered += 1;
        let attempts = self.shards[i].attempts();
        let settled = self.shards[i].settle(n, &outcome, Instant::now());
        let problem = match &outcome {
            Outcome::Done => None,
            Outcome::FailedFrom(at) => Some(format!(
                "the function failed record {} (of {n}); redelivering from it",
                seqs[*at]
            )),
            Outcome::FunctionError(e) => Some(format!("function error on {n} records: {e}")),
            Outcome::Unreachable(e) => Some(e.clone()),
        };
        if let Some(p) = &problem {
            tracing::warn!(shard = %self.shards[i].id, attempt = attempts + 1, "{p}");
        }
        if !settled.skipped.is_empty() {
            tracing::error!(
                shard = %self.shards[i].id,
                records = settled.skipped.len(),
                first = %settled.skipped[0].seq,
                last = %settled.skipped[settled.skipped.len() - 1].seq,
                "SKIPPED a batch the function failed {} times (MaximumRetryAttempts {MAXIMUM_RETRY_ATTEMPTS:?}); Lambda would send it to the on-failure destination",
                attempts + 1
            );
        }
        let unreachable = matches!(outcome, Outcome::Unreachable(_));
        let failed = problem.is_some() && !unreachable;
        self.status.update(|s| {
            s.records_delivered += settled.done as u64;
            s.skipped_records += settled.skipped.len() as u64;
            if failed {
                s.failures += 1;
            }
            if unreachable {
                s.unreachable += 1;
            }
            if let Some(p) = problem {
                s.last_error = Some(p);
            }
            if settled.done > 0 {
                s.last_delivery_ms = Some(now_ms());
            }
        });
        if settled.done > 0 || !settled.skipped.is_empty() {
            self.save();
        }
    }

    /// Finds the stream and merges its shard list.
    async fn list(&mut self) -> Result<(), String> {
        // ListStreams, not DescribeTable: DynamoDB Local counts the table's
        // items to describe it (half a second of its CPU at 185,000 items,
        // every relist), while the streams' list is one small read. The
        // newest stream is the table's (labels are creation times).
        let listed = self
            .streams
            .list_streams()
            .table_name(&self.settings.table)
            .send()
            .await
            .map_err(|e| format!("ListStreams {}: {}", self.settings.table, display(&e)))?;
        let Some(arn) = listed
            .streams()
            .iter()
            .max_by(|a, b| a.stream_label().cmp(&b.stream_label()))
            .and_then(|s| s.stream_arn())
            .map(str::to_string)
        else {
            return Err(format!(
                "table {} has no stream (the bootstrap turns it on)",
                self.settings.table
            ));
        };
        if self.stream_arn.as_deref() != Some(&arn) {
            if let Some(old) = &self.stream_arn {
                tracing::warn!(%old, new = %arn, "the table has a new stream: starting over on it");
            }
            tracing::info!(stream = %arn, "reading the table's stream");
            self.shards.clear();
            self.stream_arn = Some(arn.clone());
            self.status.update(|s| s.stream_arn = Some(arn.clone()));
        }
        let saved = self
            .settings
            .checkpoint
            .as_ref()
            .and_then(|f| f.load(&arn))
            .unwrap_or_default();
        let mut listed = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let out = self
                .streams
                .describe_stream()
                .stream_arn(&arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| format!("DescribeStream: {}", display(&e)))?;
            let Some(d) = out.stream_description() else {
                break;
            };
            for s in d.shards() {
                if let Some(id) = s.shard_id() {
                    listed.push((id.to_string(), s.parent_shard_id().map(str::to_string)));
                }
            }
            match d.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_string()),
                None => break,
            }
        }
        // Shards no longer listed are trimmed: what they held is gone.
        self.shards
            .retain(|s| listed.iter().any(|(id, _)| *id == s.id));
        for (id, parent) in listed {
            if self.shards.iter().any(|s| s.id == id) {
                continue;
            }
            let mark = saved.shards.get(&id).cloned().unwrap_or_default();
            let mut shard = Shard::new(id, parent, mark.after);
            shard.exhausted = mark.finished;
            self.shards.push(shard);
        }
        self.listed_at = Some(Instant::now());
        self.list_now = false;
        Ok(())
    }

    /// Writes the checkpoint, if the pump keeps one.
    fn save(&self) {
        let (Some(file), Some(arn)) = (&self.settings.checkpoint, &self.stream_arn) else {
            return;
        };
        let checkpoint = Checkpoint {
            stream_arn: arn.clone(),
            shards: self
                .shards
                .iter()
                .map(|s| {
                    let mark = Mark {
                        after: s.after.clone(),
                        finished: s.finished(),
                    };
                    (s.id.clone(), mark)
                })
                .collect(),
        };
        if let Err(e) = file.save(&checkpoint) {
            tracing::warn!(path = %file.0.display(), error = %e, "could not write the checkpoint");
        }
    }
}

/// The SDK's configuration: DynamoDB Local's endpoint, with a region and
/// dummy credentials unless the environment has them; the same rustls
/// client the functions use (crates/store/src/db/connect.rs).
async fn sdk_config(endpoint: Option<&str>) -> aws_config::SdkConfig {
    use aws_smithy_http_client::{
        Builder,
        tls::{Provider, rustls_provider::CryptoMode},
    };
    let https = Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https();
    let timeouts = aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(2))
        .operation_timeout(Duration::from_secs(10))
        .build();
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(https)
        .timeout_config(timeouts);
    if let Some(endpoint) = endpoint {
        loader = loader.endpoint_url(endpoint);
        if std::env::var_os("AWS_REGION").is_none()
            && std::env::var_os("AWS_DEFAULT_REGION").is_none()
        {
            loader = loader.region(aws_config::Region::new("us-east-1"));
        }
        if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() {
            loader =
                loader.credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
                    "local", "local", None, None, "local",
                ));
        }
    }
    loader.load().await
}

fn display<E: std::error::Error>(e: &E) -> String {
    aws_sdk_dynamodbstreams::error::DisplayErrorContext(e).to_string()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
