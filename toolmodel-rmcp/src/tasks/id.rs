//! Task IDs: 128 random bits from the operating system (`getrandom`), base64url without
//! padding (22 characters), so that an ID cannot be guessed from another (SEP-2663: a task ID
//! is the handle to a task's result).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};

use crate::Error;

/// A new task ID.
///
/// # Errors
///
/// [`Error::TaskStore`] when the operating system gives no random bytes.
pub(crate) fn new_task_id() -> Result<String, Error> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| Error::TaskStore {
        message: "no random bytes for a task ID".to_owned(),
        source: Some(Box::new(err)),
    })?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_22_url_safe_characters_and_differ() {
        let first = new_task_id().unwrap();
        let second = new_task_id().unwrap();
        assert_eq!(first.len(), 22);
        assert!(
            first
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_ne!(first, second);
    }
}
