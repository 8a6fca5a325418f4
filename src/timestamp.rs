//! Dates and times in UTC, as game records and protocol logs write them.

use jiff::Timestamp;
use std::time::SystemTime;

/// The instant as a [`Timestamp`]; a clock outside jiff's range (far before 1970 or after
/// 9999) reads as the epoch, since a log line is no place to fail.
fn to_timestamp(time: SystemTime) -> Timestamp {
    Timestamp::try_from(time).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// The date as a game record writes it: `YYYY.MM.DD`.
pub fn pgn_date(time: SystemTime) -> String {
    to_timestamp(time).strftime("%Y.%m.%d").to_string()
}

/// A timestamp for logs: `YYYY-MM-DD hh:mm:ss.mmm`, for the engine's debug log and the
/// match runner's engine logs alike.
pub fn log_timestamp(time: SystemTime) -> String {
    to_timestamp(time)
        .strftime("%Y-%m-%d %H:%M:%S%.3f")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn known_dates() {
        // 2026-11-29 is day 20786 after 1970-01-01.
        let t = UNIX_EPOCH + Duration::from_millis(20_786 * 86_400_000 + 77_384_694);
        assert_eq!(pgn_date(t), "2026.11.29");
        assert_eq!(log_timestamp(t), "2026-11-29 21:29:44.694");
        assert_eq!(log_timestamp(UNIX_EPOCH), "1970-01-01 00:00:00.000");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(pgn_date(leap), "2000.02.29");
        let t = UNIX_EPOCH + Duration::from_millis(1_764_450_000_123);
        assert_eq!(log_timestamp(t), "2025-11-29 21:00:00.123");
    }
}
