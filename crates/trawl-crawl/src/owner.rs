//! Which process runs a crawl, so that one killed (kill -9, a crash, a reboot) is told
//! from one still running at once, not only after its record has gone quiet for a while.
//!
//! An owner is `PID:START@HOST`: the process id, its start time in clock ticks since boot
//! (so a reused PID is not taken for the old process), and the host name. It is read from
//! `/proc`, so it exists on Linux only; elsewhere crawls have no owner and the quiet-time
//! rule alone decides.

/// This process as a crawl's owner, when `/proc` can say.
pub fn this_process() -> Option<String> {
    let pid = std::process::id();
    let start = start_ticks(pid)?;
    Some(format!("{pid}:{start}@{}", host()?))
}

/// Whether `owner` names a process on this host that no longer exists. An owner on another
/// host, or one that cannot be read, is not known to be gone.
pub fn is_gone(owner: &str) -> bool {
    let Some((process, on)) = owner.rsplit_once('@') else {
        return false;
    };
    if host().as_deref() != Some(on) {
        return false;
    }
    let Some((pid, start)) = process.split_once(':') else {
        return false;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return false;
    };
    start_ticks(pid) != Some(start)
}

fn host() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
}

/// Field 22 of `/proc/PID/stat`, counted after the command name (which may hold spaces
/// and parentheses, so the split is at its last `)`).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_not_gone_and_a_dead_one_is() {
        let me = this_process().expect("/proc is readable here");
        assert!(!is_gone(&me));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_ticks(pid);
        child.wait().unwrap();
        if let Some(start) = start {
            let dead = format!("{pid}:{start}@{}", host().unwrap());
            assert!(is_gone(&dead), "{dead}");
        }
        // Same PID, another start time: a reused PID is not the old owner.
        let (process, on) = me.rsplit_once('@').unwrap();
        let (pid, _) = process.split_once(':').unwrap();
        assert!(is_gone(&format!("{pid}:1@{on}")));
        // Another host's process is not known to be gone.
        assert!(!is_gone(&format!("{pid}:1@another-host.invalid")));
    }
}
