//! A job's private directory: created with mode 0700, its files with 0600
//! (the env file holds values), and removed when the run is over, however
//! it ended.

use std::{
    fs::{self, DirBuilder, OpenOptions},
    io::{self, Write},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt},
    path::{Path, PathBuf},
};

use crate::plan::Plan;

pub struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    /// Create `path` (its parent may exist already) and write the plan's
    /// directories and files under it.
    pub fn create(path: &Path, plan: &Plan) -> io::Result<Self> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        DirBuilder::new().mode(0o700).create(path)?;
        // From here on, dropping `dir` removes whatever was written.
        let dir = Self {
            path: path.to_owned(),
        };
        for sub in &plan.dirs {
            DirBuilder::new().recursive(true).mode(0o700).create(sub)?;
        }
        for file in &plan.files {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&file.path)?
                .write_all(file.contents.as_bytes())?;
        }
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "could not remove a job's directory");
        }
    }
}
