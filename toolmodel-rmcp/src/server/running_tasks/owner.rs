//! Who may see a task: under authorization, only the verified caller that created it (its
//! issuer and subject, recorded as [`TaskRecord::owner`]); `tasks/*` from any other caller,
//! or from none, is answered as for an unknown task.

use toolmodel::Caller;

use crate::tasks::TaskRecord;

/// The owner recorded for a task `caller` creates: its `iss` and `sub` as a JSON array
/// (`["https://issuer.example","alice"]`, unambiguous whatever either holds, as the
/// `requestState` binding); `None` without a caller (no authorization).
pub(crate) fn owner(caller: Option<&Caller>) -> Option<String> {
    caller.map(|caller| serde_json::json!([caller.issuer(), caller.subject()]).to_string())
}

/// Whether `caller` may see `record`: a task without owner is seen by anyone with its ID, an
/// owned one by its owner only.
pub(crate) fn visible_to(record: &TaskRecord, caller: Option<&Caller>) -> bool {
    record.owner.is_none() || record.owner == owner(caller)
}

#[cfg(test)]
mod tests {
    use rmcp::model::{Task, TaskStatus};

    use super::*;

    fn record(creator: Option<&Caller>) -> TaskRecord {
        let task = Task::new("t", TaskStatus::Working, "now", "now");
        let record = TaskRecord::new(task, "w", 0, 0);
        match owner(creator) {
            Some(owner) => record.with_owner(owner),
            None => record,
        }
    }

    #[test]
    fn an_owned_task_is_visible_to_its_issuer_and_subject_only() {
        let alice = Caller::new("https://a.example", "alice");
        let owned = record(Some(&alice));
        assert!(visible_to(&owned, Some(&alice)));
        assert!(!visible_to(&owned, None));
        assert!(!visible_to(
            &owned,
            Some(&Caller::new("https://a.example", "bob"))
        ));
        assert!(!visible_to(
            &owned,
            Some(&Caller::new("https://b.example", "alice"))
        ));
        // Issuer and subject cannot be shifted into one another.
        let shifted = Caller::new("https://a.example\",\"alice", "");
        assert_ne!(owner(Some(&shifted)), owner(Some(&alice)));
    }

    #[test]
    fn a_task_made_without_a_caller_is_visible_to_anyone_with_its_id() {
        let unowned = record(None);
        assert_eq!(unowned.owner, None);
        assert!(visible_to(&unowned, None));
        assert!(visible_to(
            &unowned,
            Some(&Caller::new("https://a.example", "alice"))
        ));
    }
}
