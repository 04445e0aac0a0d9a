//! The server's resident memory, read from `/proc/<pid>/status` (Linux), and finding
//! the server's process by the TCP port it listens on.

use procfs::net::TcpState;
use procfs::process::{FDTarget, Process};
use serde::Serialize;

/// Resident memory of a process, in KiB (`VmRSS` and `VmHWM` of `/proc/<pid>/status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rss {
    /// Resident set size now, KiB.
    pub rss_kb: u64,
    /// Peak resident set size since the process started, KiB.
    pub peak_kb: u64,
}

/// Reads the resident memory of process `pid`; `None` when the process is gone or
/// `/proc` cannot be read.
pub fn rss(pid: i32) -> Option<Rss> {
    let st = Process::new(pid).ok()?.status().ok()?;
    Some(Rss {
        rss_kb: st.vmrss?,
        peak_kb: st.vmhwm.unwrap_or(0),
    })
}

/// The process listening on TCP `port` (IPv4 or IPv6), found through the socket inode
/// of `/proc/net/tcp{,6}` and the descriptors in `/proc/*/fd`; `None` when no
/// readable process listens there.
pub fn listener_pid(port: u16) -> Option<i32> {
    let mut inodes: Vec<u64> = Vec::new();
    for table in [procfs::net::tcp(), procfs::net::tcp6()]
        .into_iter()
        .flatten()
    {
        inodes.extend(
            table
                .into_iter()
                .filter(|e| e.state == TcpState::Listen && e.local_address.port() == port)
                .map(|e| e.inode),
        );
    }
    if inodes.is_empty() {
        return None;
    }
    for p in procfs::process::all_processes().ok()?.flatten() {
        let Ok(fds) = p.fd() else { continue };
        for fd in fds.flatten() {
            if let FDTarget::Socket(ino) = fd.target {
                if inodes.contains(&ino) {
                    return Some(p.pid);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_rss_is_positive_and_within_peak() {
        let r = rss(std::process::id() as i32).expect("own /proc/self/status is readable");
        assert!(r.rss_kb > 0);
        assert!(r.peak_kb >= r.rss_kb);
    }

    #[test]
    fn a_listening_socket_is_traced_to_this_process() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(listener_pid(port), Some(std::process::id() as i32));
        drop(l);
        assert_eq!(listener_pid(port), None);
    }
}
