//! Dates and times in UTC for game records and protocol logs, without a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// The civil date (year, month, day) of a day counted from 1970-01-01, by Howard Hinnant's
/// `civil_from_days` algorithm (proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Milliseconds since 1970 (0 for a clock set before it).
fn millis_since_epoch(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The date as a game record writes it: `YYYY.MM.DD`.
pub fn pgn_date(time: SystemTime) -> String {
    let (year, month, day) = civil_from_days(millis_since_epoch(time).div_euclid(86_400_000));
    format!("{year:04}.{month:02}.{day:02}")
}

/// A timestamp for logs: `YYYY-MM-DD hh:mm:ss.mmm`, as the engine's own debug log writes.
pub fn log_timestamp(time: SystemTime) -> String {
    let millis = millis_since_epoch(time);
    let (year, month, day) = civil_from_days(millis.div_euclid(86_400_000));
    let in_day = millis.rem_euclid(86_400_000);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-02-29 is day 11016; 2026-11-29 is day 20786.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        let t = UNIX_EPOCH + Duration::from_millis(20_786 * 86_400_000 + 77_384_694);
        assert_eq!(pgn_date(t), "2026.11.29");
        assert_eq!(log_timestamp(t), "2026-11-29 21:29:44.694");
    }
}
