//! Durations as people read them in messages: `1 s`, `2.5 s`, `250 ms`.

use std::time::Duration;

/// A deadline in the unit it was most likely given in: whole or fractional seconds from a
/// second up, milliseconds below (`--timeout 1` is "1 s", not "1000 ms").
pub fn spoken_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms} ms");
    }
    let secs = d.as_secs_f64();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{} s", (secs * 10.0).round() / 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_from_one_up_milliseconds_below() {
        assert_eq!(spoken_duration(Duration::from_secs(1)), "1 s");
        assert_eq!(spoken_duration(Duration::from_millis(2500)), "2.5 s");
        assert_eq!(spoken_duration(Duration::from_millis(250)), "250 ms");
        assert_eq!(spoken_duration(Duration::from_secs(8)), "8 s");
    }
}
