//! Durations as people read them in messages: `1 s`, `8 s`, `1500 ms`.

use std::time::Duration;

/// A deadline in the unit it was most likely given in: whole seconds as seconds
/// (`--timeout 1` is "1 s", not "1000 ms"), anything finer in milliseconds.
pub fn spoken_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_seconds_as_seconds_the_rest_in_milliseconds() {
        assert_eq!(spoken_duration(Duration::from_secs(1)), "1 s");
        assert_eq!(spoken_duration(Duration::from_secs(8)), "8 s");
        assert_eq!(spoken_duration(Duration::from_millis(1500)), "1500 ms");
        assert_eq!(spoken_duration(Duration::from_millis(250)), "250 ms");
    }
}
