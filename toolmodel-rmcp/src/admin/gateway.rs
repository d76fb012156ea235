//! The gateway's part of the admin listener (feature `federation`): the status document of a
//! [`Federation`]'s upstream servers, and the readiness check of its required ones
//! ([`UpstreamConfig::required`](crate::federation::UpstreamConfig::required)).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::Admin;
use crate::federation::{
    Federation,
    history::{Phase, Record},
};

impl Admin {
    /// Adds the gateway's status document and readiness check for `federation`:
    ///
    /// - `/status` gets the member `upstreams`, an array with one object per enabled server,
    ///   in configuration order: `name`, `state` (`starting`: the first attempt to open its
    ///   session has not ended; `up`: a session is open; `restarting`: an attempt to open one
    ///   again is running; `down`: none is open, the next attempt comes after the backoff
    ///   delay; `shut_down`), `since` (when it entered that state, RFC 3339 in UTC), `required`,
    ///   `tools` (how many of its tools the gateway serves), `pid` (a stdio server's child
    ///   process while its session is open, else `null`), `restarts` (sessions opened after
    ///   the first), `failures` (attempts to open a session that failed, and sessions that
    ///   closed under the gateway) and `last_error` (the last failure, without the
    ///   configuration's secrets, or `null`).
    /// - `/readyz` gets the check `upstreams`: it fails while a required server is not `up`,
    ///   naming each such server, its state and last error. A gateway with no required
    ///   server passes it once started.
    ///
    /// Neither waits for an upstream: an attempt to open a session in progress shows as
    /// `starting` or `restarting`.
    #[must_use]
    pub fn with_federation(self, federation: &Federation) -> Self {
        let status = federation.clone();
        let ready = federation.clone();
        self.with_status(move || json!({"upstreams": document(&status)}))
            .with_readiness("upstreams", move || {
                let verdict = required_up(&ready);
                async move { verdict }
            })
    }
}

/// One object per upstream.
fn document(federation: &Federation) -> Vec<Value> {
    federation
        .upstreams_served()
        .into_iter()
        .map(|(upstream, tools)| {
            let Record {
                phase,
                since,
                pid,
                restarts,
                failures,
                last_error,
                ..
            } = upstream.history.snapshot();
            json!({
                "name": upstream.config.name,
                "state": phase.as_str(),
                "since": rfc3339(since),
                "required": upstream.config.required,
                "tools": tools,
                "pid": pid,
                "restarts": restarts,
                "failures": failures,
                "last_error": last_error,
            })
        })
        .collect()
}

/// `Ok` when every required upstream is up, else which are not and why.
fn required_up(federation: &Federation) -> Result<(), String> {
    let not_up: Vec<String> = federation
        .upstreams_served()
        .into_iter()
        .filter(|(upstream, _)| upstream.config.required)
        .filter_map(|(upstream, _)| {
            let record = upstream.history.snapshot();
            (record.phase != Phase::Up).then(|| {
                let mut why = format!(
                    "required server {:?} is {}",
                    upstream.config.name,
                    record.phase.as_str()
                );
                if let Some(error) = record.last_error {
                    why.push_str(": ");
                    why.push_str(&error);
                }
                why
            })
        })
        .collect();
    if not_up.is_empty() {
        Ok(())
    } else {
        Err(not_up.join("; "))
    }
}

/// `time` as RFC 3339 in UTC, to the second (`2026-11-29T12:24:58Z`).
fn rfc3339(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX);
    let of_day = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_rfc_3339_in_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let time = UNIX_EPOCH + std::time::Duration::from_secs(1_795_955_098);
        assert_eq!(rfc3339(time), "2026-11-29T12:24:58Z");
        let leap = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
