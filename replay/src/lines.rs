//! Splitting a trace into lines, streaming.

use std::io::{self, BufRead};

/// The UTF-8 byte-order mark, which a trace may start with.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads a trace line by line from a buffered reader, reusing one buffer,
/// so memory stays bounded by the longest line however long the trace.
///
/// A line ends at `\n`, at `\r\n` (one line end, not two) or at a bare
/// `\r`; a last line without an ending counts as a line unless it is
/// empty. A UTF-8 byte-order mark at the very start of the input is
/// skipped; anywhere else it is part of its line.
///
/// ```
/// use zorder_replay::LineReader;
///
/// let mut lines = LineReader::new(&b"\xEF\xBB\xBFadd 1 2\r\nb2f\rf2b\n\nstats"[..]);
/// let mut all = Vec::new();
/// while let Some(line) = lines.next_line()? {
///     all.push(String::from_utf8(line.to_vec()).unwrap());
/// }
/// assert_eq!(all, ["add 1 2", "b2f", "f2b", "", "stats"]);
/// assert_eq!(lines.lines_read(), 5);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    line: Vec<u8>,
    /// The last line ended with `\r`: a `\n` right after it belongs to it.
    after_cr: bool,
    lines: u64,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of the lines of `input`, which starts at the start of a
    /// trace.
    ///
    /// ```
    /// use zorder_replay::LineReader;
    ///
    /// let mut lines = LineReader::new(&b""[..]);
    /// assert_eq!(lines.next_line()?, None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(input: R) -> Self {
        LineReader {
            input,
            line: Vec::new(),
            after_cr: false,
            lines: 0,
        }
    }

    /// The next line, without its ending, or `None` at the end of the
    /// input.
    ///
    /// # Errors
    ///
    /// The input's error. Reads interrupted by a signal are retried.
    ///
    /// ```
    /// use zorder_replay::LineReader;
    ///
    /// // A `\r\n` split across two reads is still one line end.
    /// let input = std::io::Read::chain(&b"b2f\r"[..], &b"\nstats\r"[..]);
    /// let mut lines = LineReader::new(std::io::BufReader::with_capacity(1, input));
    /// assert_eq!(lines.next_line()?, Some(&b"b2f"[..]));
    /// assert_eq!(lines.next_line()?, Some(&b"stats"[..]));
    /// assert_eq!(lines.next_line()?, None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        self.line.clear();
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if buffer.is_empty() {
                self.after_cr = false;
                let first = self.lines == 0;
                if strip_bom(&self.line, first).is_empty() {
                    return Ok(None);
                }
                self.lines += 1;
                return Ok(Some(strip_bom(&self.line, first)));
            }
            let skip = usize::from(std::mem::take(&mut self.after_cr) && buffer[0] == b'\n');
            let rest = &buffer[skip..];
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.line.extend_from_slice(&rest[..end]);
                    self.after_cr = rest[end] == b'\r';
                    self.input.consume(skip + end + 1);
                    let first = self.lines == 0;
                    self.lines += 1;
                    return Ok(Some(strip_bom(&self.line, first)));
                }
                None => {
                    self.line.extend_from_slice(rest);
                    let read = buffer.len();
                    self.input.consume(read);
                }
            }
        }
    }

    /// How many lines [`next_line`](Self::next_line) has returned: the
    /// number of the last one.
    ///
    /// ```
    /// use zorder_replay::LineReader;
    ///
    /// let mut lines = LineReader::new(&b"\n\n"[..]);
    /// while lines.next_line()?.is_some() {}
    /// assert_eq!(lines.lines_read(), 2);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn lines_read(&self) -> u64 {
        self.lines
    }

    /// The input, with whatever has not been read yet.
    ///
    /// ```
    /// use zorder_replay::LineReader;
    ///
    /// let mut lines = LineReader::new(&b"b2f\nstats\n"[..]);
    /// lines.next_line()?;
    /// assert_eq!(lines.into_inner(), b"stats\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.input
    }
}

fn strip_bom(line: &[u8], first: bool) -> &[u8] {
    match line.strip_prefix(BOM) {
        Some(rest) if first => rest,
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    /// Gives its bytes `chunk` at a time.
    struct Chunks<'a> {
        bytes: &'a [u8],
        chunk: usize,
    }

    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// The lines of `bytes`, read in chunks of every size from 1 to 8 (all
    /// must agree).
    fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut seen: Option<Vec<Vec<u8>>> = None;
        for chunk in 1..=8 {
            let mut reader =
                LineReader::new(BufReader::with_capacity(chunk, Chunks { bytes, chunk }));
            let mut lines = Vec::new();
            while let Some(line) = reader.next_line().unwrap() {
                lines.push(line.to_vec());
            }
            assert_eq!(reader.lines_read(), lines.len() as u64);
            if let Some(seen) = &seen {
                assert_eq!(seen, &lines, "chunks of {chunk}");
            }
            seen = Some(lines);
        }
        seen.unwrap()
    }

    fn strings(lines: &[&str]) -> Vec<Vec<u8>> {
        lines.iter().map(|line| line.as_bytes().to_vec()).collect()
    }

    #[test]
    fn lf_ends_lines_and_a_last_line_needs_no_ending() {
        assert_eq!(lines(b""), strings(&[]));
        assert_eq!(lines(b"a"), strings(&["a"]));
        assert_eq!(lines(b"a\n"), strings(&["a"]));
        assert_eq!(lines(b"a\nb"), strings(&["a", "b"]));
        assert_eq!(lines(b"\n"), strings(&[""]));
        assert_eq!(lines(b"\n\n"), strings(&["", ""]));
    }

    /// Issue: bare CR line endings (old Mac tools) failed.
    #[test]
    fn crlf_and_bare_cr_end_lines_too() {
        assert_eq!(lines(b"a\r\nb\r\n"), strings(&["a", "b"]));
        assert_eq!(lines(b"a\rb\r"), strings(&["a", "b"]));
        assert_eq!(lines(b"a\rb"), strings(&["a", "b"]));
        // `\r\n` is one line end; `\n\r` is two, and `\r\r` two.
        assert_eq!(lines(b"a\r\n\r\nb"), strings(&["a", "", "b"]));
        assert_eq!(lines(b"a\n\rb"), strings(&["a", "", "b"]));
        assert_eq!(lines(b"a\r\rb"), strings(&["a", "", "b"]));
        assert_eq!(lines(b"\r"), strings(&[""]));
        assert_eq!(lines(b"\r\n"), strings(&[""]));
        // Mixed in one file.
        assert_eq!(lines(b"a\rb\r\nc\nd"), strings(&["a", "b", "c", "d"]));
    }

    /// Issue: a UTF-8 byte-order mark at the start gave "unknown command".
    #[test]
    fn a_bom_at_the_very_start_is_skipped() {
        assert_eq!(lines(b"\xEF\xBB\xBFadd 1 2\n"), strings(&["add 1 2"]));
        assert_eq!(lines(b"\xEF\xBB\xBF"), strings(&[]));
        assert_eq!(lines(b"\xEF\xBB\xBF\n"), strings(&[""]));
        assert_eq!(lines(b"\xEF\xBB\xBF\rb2f"), strings(&["", "b2f"]));
        // Only one, and only at the start of the input.
        assert_eq!(
            lines(b"\xEF\xBB\xBF\xEF\xBB\xBFb2f"),
            vec![b"\xEF\xBB\xBFb2f".to_vec()]
        );
        assert_eq!(
            lines(b"b2f\n\xEF\xBB\xBFb2f"),
            vec![b"b2f".to_vec(), b"\xEF\xBB\xBFb2f".to_vec()]
        );
        // A partial mark is not one.
        assert_eq!(lines(b"\xEF\xBBb2f"), vec![b"\xEF\xBBb2f".to_vec()]);
    }

    #[test]
    fn interrupted_reads_are_retried() {
        struct Flaky<'a> {
            bytes: &'a [u8],
            interrupt: bool,
        }
        impl Read for Flaky<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.interrupt = !self.interrupt;
                if self.interrupt {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                let n = buf.len().min(self.bytes.len()).min(2);
                buf[..n].copy_from_slice(&self.bytes[..n]);
                self.bytes = &self.bytes[n..];
                Ok(n)
            }
        }
        let mut reader = LineReader::new(BufReader::with_capacity(
            2,
            Flaky {
                bytes: b"b2f\r\nstats",
                interrupt: false,
            },
        ));
        assert_eq!(reader.next_line().unwrap(), Some(&b"b2f"[..]));
        assert_eq!(reader.next_line().unwrap(), Some(&b"stats"[..]));
        assert_eq!(reader.next_line().unwrap(), None);
    }
}
