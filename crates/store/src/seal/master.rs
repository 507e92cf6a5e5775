//! The master key that seals each team's data key: a KMS key on AWS, or a
//! key file under `make dev` and `make test`. Only wrapped data keys are
//! stored; the master key never leaves KMS (or the file).

use aws_sdk_kms::{primitives::Blob, types::DataKeySpec};
use base64::{Engine, engine::general_purpose::STANDARD};

use super::{SealError, cipher::Cipher};

pub enum Master {
    /// `SECRETS_KEY_FILE`: 32 bytes, as 64 hex digits.
    Local(Box<Cipher>),
    /// `SECRETS_KMS_KEY_ID`.
    Kms {
        client: aws_sdk_kms::Client,
        key_id: String,
    },
}

/// A fresh data key, in the clear (kept in memory only) and wrapped.
pub struct DataKey {
    pub plain: [u8; 32],
    pub wrapped: String,
}

impl Master {
    /// What the stored key item says wrapped it; a key wrapped by one kind
    /// does not unwrap under the other.
    pub fn kind(&self) -> &'static str {
        match self {
            Master::Local(_) => "local",
            Master::Kms { .. } => "kms",
        }
    }

    /// Reads a key file's 64 hex digits.
    pub fn local(hex_text: &str) -> Result<Master, String> {
        let bytes = hex::decode(hex_text.trim()).map_err(|e| e.to_string())?;
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|_| "the key must be 32 bytes (64 hex digits)".to_string())?;
        Ok(Master::Local(Box::new(Cipher::new(&key))))
    }

    /// The team is bound to its key: KMS's encryption context, or the
    /// local cipher's associated data.
    pub async fn generate(&self, team: &str) -> Result<DataKey, SealError> {
        match self {
            Master::Local(cipher) => {
                let mut plain = [0u8; 32];
                super::cipher::random(&mut plain);
                let wrapped = cipher.seal(&context(team), &plain);
                Ok(DataKey { plain, wrapped })
            }
            Master::Kms { client, key_id } => {
                let out = client
                    .generate_data_key()
                    .key_id(key_id)
                    .key_spec(DataKeySpec::Aes256)
                    .encryption_context("team", team)
                    .send()
                    .await
                    .map_err(|e| {
                        SealError::Kms(aws_sdk_kms::error::DisplayErrorContext(e).to_string())
                    })?;
                let plain = out
                    .plaintext
                    .and_then(|b| <[u8; 32]>::try_from(b.into_inner()).ok())
                    .ok_or(SealError::Kms(
                        "GenerateDataKey returned no 32-byte key".into(),
                    ))?;
                let wrapped = out
                    .ciphertext_blob
                    .map(|b| STANDARD.encode(b.into_inner()))
                    .ok_or(SealError::Kms(
                        "GenerateDataKey returned no ciphertext".into(),
                    ))?;
                Ok(DataKey { plain, wrapped })
            }
        }
    }

    pub async fn unwrap(&self, team: &str, wrapped: &str) -> Result<[u8; 32], SealError> {
        match self {
            Master::Local(cipher) => cipher
                .open(&context(team), wrapped)
                .ok()
                .and_then(|k| k.try_into().ok())
                .ok_or(SealError::Unreadable),
            Master::Kms { client, key_id } => {
                let blob = STANDARD
                    .decode(wrapped)
                    .map_err(|_| SealError::Unreadable)?;
                let out = client
                    .decrypt()
                    .key_id(key_id)
                    .ciphertext_blob(Blob::new(blob))
                    .encryption_context("team", team)
                    .send()
                    .await
                    .map_err(|e| {
                        SealError::Kms(aws_sdk_kms::error::DisplayErrorContext(e).to_string())
                    })?;
                out.plaintext
                    .and_then(|b| <[u8; 32]>::try_from(b.into_inner()).ok())
                    .ok_or(SealError::Unreadable)
            }
        }
    }
}

fn context(team: &str) -> String {
    format!("team:{team}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_local_data_key_unwraps_for_its_team_only() {
        let m = Master::local(&"ab".repeat(32)).unwrap();
        let k = m.generate("acme").await.unwrap();
        assert_eq!(m.unwrap("acme", &k.wrapped).await.unwrap(), k.plain);
        assert!(m.unwrap("other", &k.wrapped).await.is_err());
        assert!(Master::local("abc").is_err());
        assert!(Master::local(&"ab".repeat(31)).is_err());
    }
}
