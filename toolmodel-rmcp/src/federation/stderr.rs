//! A stdio server's standard error, passed on to the gateway's: each line prefixed with the
//! server's name (`[time] ...`), so that a server that fails to start says why where the
//! operator looks.
//!
//! The child never waits on the gateway: one task reads its stderr as fast as the child
//! writes, and hands each line to a second task that writes them out through a queue of
//! [`QUEUE`] lines. A line longer than [`MAX_LINE`] bytes is cut (the rest up to its newline is
//! read and dropped); a line that finds the queue full is dropped, and the next line written
//! says how many were. Each line goes through the server's redactor first (its configured
//! secrets become `***`, see `redact`).

use tokio::{
    io::{
        AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader,
    },
    sync::mpsc,
    task::JoinHandle,
};

use crate::federation::redact::Redactor;

/// The longest line passed on, in bytes; the rest of a longer one is dropped.
pub(crate) const MAX_LINE: usize = 4096;

/// The most lines waiting to be written; more are dropped.
pub(crate) const QUEUE: usize = 256;

/// One line for the writer.
struct Line {
    text: String,
    /// Whether it was cut at [`MAX_LINE`] bytes.
    cut: bool,
    /// How many lines before it were dropped (the queue was full).
    dropped_before: u64,
}

/// Passes each line of `stderr` (the child of server `server`) on to `sink` as
/// `[server] line`, redacted by `redactor`, on a task of its own whose reader is a task it
/// owns (see the [module docs](self)). The returned task ends, giving `sink` back, once
/// `stderr` has ended and every queued line is written (or, `sink` having failed, once the
/// reader has drained `stderr` to its end).
pub(crate) fn forward<R, W>(
    server: &str,
    redactor: Redactor,
    stderr: R,
    mut sink: W,
) -> JoinHandle<W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (lines, mut queued) = mpsc::channel::<Line>(QUEUE);
    let prefix = format!("[{server}]");
    tokio::spawn(async move {
        let reader = tokio::spawn(read_lines(BufReader::new(stderr), lines));
        while let Some(line) = queued.recv().await {
            let mut out = String::new();
            if line.dropped_before > 0 {
                out.push_str(&format!(
                    "{prefix} ({} lines of stderr dropped: the gateway could not write them as fast)\n",
                    line.dropped_before
                ));
            }
            let cut = if line.cut {
                format!(" [cut at {MAX_LINE} bytes]")
            } else {
                String::new()
            };
            out.push_str(&format!("{prefix} {}{cut}\n", redactor.text(&line.text)));
            if sink.write_all(out.as_bytes()).await.is_err() || sink.flush().await.is_err() {
                // Nowhere to write: the reader goes on draining the child's stderr.
                break;
            }
        }
        drop(queued);
        // The reader ends with the child's stderr (its process group killed at the latest).
        let _ = reader.await;
        sink
    })
}

/// Reads `stderr` to its end, queueing each line on `lines` without ever waiting for room.
async fn read_lines<R: AsyncBufRead + Unpin>(mut stderr: R, lines: mpsc::Sender<Line>) {
    let mut bytes = Vec::with_capacity(256);
    let mut dropped = 0u64;
    while let Ok(Some(cut)) = read_line(&mut stderr, &mut bytes).await {
        let text = String::from_utf8_lossy(&bytes);
        let line = Line {
            text: text.strip_suffix('\r').unwrap_or(&text).to_owned(),
            cut,
            dropped_before: dropped,
        };
        match lines.try_send(line) {
            Ok(()) => dropped = 0,
            Err(mpsc::error::TrySendError::Full(_)) => dropped = dropped.saturating_add(1),
            // The writer is gone: keep reading, so that the child never blocks on stderr.
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
}

/// Reads the next line of `reader` into `line` (without its `\n`), at most [`MAX_LINE`]
/// bytes of it: `Some(true)` when it was cut, `None` at the end of the input.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    line.clear();
    let mut cut = false;
    let mut read_any = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(read_any.then_some(cut));
        }
        read_any = true;
        let (chunk, used, ended) = match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => (buffer.split_at(end).0, end + 1, true),
            None => (buffer, buffer.len(), false),
        };
        let room = MAX_LINE.saturating_sub(line.len());
        if chunk.len() > room {
            cut = true;
        }
        line.extend_from_slice(chunk.get(..room).unwrap_or(chunk));
        reader.consume(used);
        if ended {
            return Ok(Some(cut));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{
        pin::Pin,
        task::{Context, Poll},
        time::Duration,
    };

    use super::*;
    use crate::federation::config::{StdioTransport, UpstreamConfig};

    #[tokio::test]
    async fn each_line_is_prefixed_redacted_and_cut_at_the_limit() {
        let long = "x".repeat(MAX_LINE + 100);
        let input = format!("boom\r\ntoken sk-secret-123 here\n{long}\nlast without newline");
        let redactor = Redactor::new(&UpstreamConfig::stdio(
            "time",
            StdioTransport::new("x").with_env("KEY", "sk-secret-123"),
        ));
        let sink = forward("time", redactor, std::io::Cursor::new(input), Vec::new())
            .await
            .unwrap();
        let text = String::from_utf8(sink).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "[time] boom");
        assert_eq!(lines[1], "[time] token *** here");
        assert_eq!(
            lines[2],
            format!("[time] {} [cut at {MAX_LINE} bytes]", "x".repeat(MAX_LINE))
        );
        assert_eq!(lines[3], "[time] last without newline");
        assert_eq!(lines.len(), 4);
    }

    /// A sink that never takes a byte.
    struct Stuck;

    impl AsyncWrite for Stuck {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            Poll::Pending
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Pending
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_flood_never_blocks_the_child_when_the_gateway_s_stderr_does_not_keep_up() {
        let (mut child, stderr) = tokio::io::duplex(1024);
        let writer = forward("flood", Redactor::default(), stderr, Stuck);
        // Far more than the pipe, the queue and the line limit hold.
        let line = format!("{}\n", "y".repeat(MAX_LINE * 2));
        let flood = async {
            for _ in 0..2_000 {
                child.write_all(line.as_bytes()).await.unwrap();
            }
        };
        tokio::time::timeout(Duration::from_secs(10), flood)
            .await
            .expect("the child's writes never wait for the stuck sink");
        writer.abort();
    }
}
