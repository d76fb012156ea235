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
