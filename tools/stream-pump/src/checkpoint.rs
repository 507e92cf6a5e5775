//! Where the pump has got to, kept in a file under `make dev`
//! (`.local/stream-pump.json`), as Lambda keeps its mapping's position: a
//! restart continues after the last record done on each shard, so it
//! neither skips records nor delivers much again (at most the batch that
//! was in flight). Written after every batch, by replacing the file whole.
//! A checkpoint of another stream (the table was made again) is ignored.

use std::{
    collections::BTreeMap,
    io,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub stream_arn: String,
    pub shards: BTreeMap<String, Mark>,
}

/// One shard's position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    /// The last record done (or skipped); none: from the start.
    pub after: Option<String>,
    /// Read to its end: its children may go.
    pub finished: bool,
}

/// The file, if any.
#[derive(Clone, Debug)]
pub struct File(pub PathBuf);

impl File {
    /// The checkpoint for `stream_arn`, if the file holds one.
    pub fn load(&self, stream_arn: &str) -> Option<Checkpoint> {
        let text = std::fs::read_to_string(&self.0).ok()?;
        match serde_json::from_str::<Checkpoint>(&text) {
            Ok(c) if c.stream_arn == stream_arn => Some(c),
            Ok(c) => {
                tracing::info!(old = %c.stream_arn, new = %stream_arn, "checkpoint of another stream: starting over");
                None
            }
            Err(e) => {
                tracing::warn!(path = %self.0.display(), error = %e, "unreadable checkpoint: starting over");
                None
            }
        }
    }

    pub fn save(&self, checkpoint: &Checkpoint) -> io::Result<()> {
        let tmp = tmp_path(&self.0);
        let text = serde_json::to_string_pretty(checkpoint).map_err(io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.0)
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_and_loads_for_the_same_stream_only() {
        let dir = std::env::temp_dir().join(format!("pump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = File(dir.join("stream-pump.json"));
        assert_eq!(file.load("arn:1"), None, "no file yet");
        let mut c = Checkpoint {
            stream_arn: "arn:1".into(),
            shards: BTreeMap::new(),
        };
        c.shards.insert(
            "shard-a".into(),
            Mark {
                after: Some("000000000000000000042".into()),
                finished: true,
            },
        );
        c.shards.insert("shard-b".into(), Mark::default());
        file.save(&c).unwrap();
        assert_eq!(file.load("arn:1"), Some(c.clone()));
        assert_eq!(file.load("arn:2"), None, "another stream starts over");
        std::fs::write(&file.0, "{not json").unwrap();
        assert_eq!(file.load("arn:1"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
