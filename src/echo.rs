//! Input echoed in output lines, made safe: a GUI reads the engine's output line by line,
//! and some treat a lone carriage return (or a Unicode line separator) as a line end, so
//! an echoed fragment holding one could smuggle in a line such as `bestmove ...` that the
//! engine never wrote. Echoes are also capped, so that a huge bad line gives a short error.

/// The most characters of an error message, echoed fragments included.
pub const MAX_MESSAGE_CHARS: usize = 240;

/// `text` with every control character and line or paragraph separator written as an
/// escape (`\r`, `\n`, `\t`, `\0`, `\x1b` or `\u2028`; no braces, which would end a
/// comment in a game record), cut to `max_chars` characters with `...`
/// marking the cut. The result is one line of printable text.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for c in text.chars() {
        let piece = match c {
            '\r' => "\\r".to_string(),
            '\n' => "\\n".to_string(),
            '\t' => "\\t".to_string(),
            '\0' => "\\0".to_string(),
            c if c.is_control() => format!("\\x{:02x}", u32::from(c)),
            '\u{2028}' | '\u{2029}' => format!("\\u{:04x}", u32::from(c)),
            c => c.to_string(),
        };
        let width = piece.chars().count();
        if chars + width > max_chars {
            out.push_str("...");
            break;
        }
        out.push_str(&piece);
        chars += width;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_escapes() {
        assert_eq!(printable("a\rb\nc\td\0e", 100), "a\\rb\\nc\\td\\0e");
        assert_eq!(
            printable("\u{1b}[2J\u{2028}\u{85}", 100),
            "\\x1b[2J\\u2028\\x85"
        );
        assert_eq!(printable("héllo ✓", 100), "héllo ✓");
    }

    #[test]
    fn long_text_is_cut_with_a_mark() {
        assert_eq!(printable(&"x".repeat(10), 4), "xxxx...");
        assert_eq!(printable("ab\rcd", 3), "ab...");
        assert_eq!(printable(&"\r".repeat(1000), 10).chars().count(), 13);
    }
}
