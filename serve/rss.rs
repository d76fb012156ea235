//! A process's resident memory, for the soak's figures (Linux: `VmRSS` in `/proc/PID/status`).

/// The resident memory of process `pid` in KiB; 0 when it cannot be read (no such process,
/// not Linux).
pub fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmRSS:")
                    .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}
