//! [`HostBackoffStore`] on Redis: one sorted set, `P backoff`, host → end (ms). `ZADD GT`
//! keeps the later end; ends past are dropped as new ones come, and the set itself
//! expires with its last end.

use std::time::SystemTime;

use redis::Commands;

use super::RedisStore;
use crate::backoff::HostBackoffStore;
use crate::{Result, from_millis, to_millis};

impl RedisStore {
    fn backoff_key(&self) -> String {
        self.key("backoff")
    }
}

impl HostBackoffStore for RedisStore {
    fn put_host_backoff(&self, host: &str, until: SystemTime) -> Result<()> {
        let key = self.backoff_key();
        let (end, now) = (to_millis(until), to_millis(SystemTime::now()));
        self.with_conn(|conn| {
            redis::pipe()
                .atomic()
                .cmd("ZADD")
                .arg(&key)
                .arg("GT")
                .arg(end)
                .arg(host)
                .ignore()
                .cmd("ZREMRANGEBYSCORE")
                .arg(&key)
                .arg("-inf")
                .arg(now)
                .ignore()
                .query::<()>(conn)?;
            // The set lives as long as its latest end.
            let last: Vec<(String, i64)> = conn.zrevrange_withscores(&key, 0, 0)?;
            if let Some((_, last)) = last.first() {
                let _: () = redis::cmd("PEXPIREAT").arg(&key).arg(*last).query(conn)?;
            }
            Ok(())
        })
    }

    fn host_backoff(&self, host: &str, now: SystemTime) -> Result<Option<SystemTime>> {
        let key = self.backoff_key();
        let end: Option<i64> = self.with_conn(|conn| Ok(conn.zscore(&key, host)?))?;
        Ok(end.filter(|e| *e > to_millis(now)).map(from_millis))
    }

    fn host_backoffs(&self, now: SystemTime) -> Result<Vec<(String, SystemTime)>> {
        let key = self.backoff_key();
        let min = format!("({}", to_millis(now));
        let rows: Vec<(String, i64)> =
            self.with_conn(|conn| Ok(conn.zrangebyscore_withscores(&key, &min, "+inf")?))?;
        Ok(rows.into_iter().map(|(h, e)| (h, from_millis(e))).collect())
    }
}
