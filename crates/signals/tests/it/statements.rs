//! What PostgreSQL ran for a round, from `pg_stat_statements`:
//! the round test (`workers.rs`) and the round benchmark
//! (`benches/round.rs` includes this file) read the same figures. The
//! cluster must load the module (`signals_testpg::Options`).

#![allow(dead_code)] // each user takes what it needs

use std::collections::BTreeMap;

/// One normalized statement of one database, as `pg_stat_statements`
/// counted it.
#[derive(Debug, Clone)]
pub struct Statement {
    /// The normalized text (`$1` for each constant).
    pub query: String,
    pub calls: i64,
    pub total_ms: f64,
    pub mean_ms: f64,
    /// Shared buffers hit or read per call: what the statement touched,
    /// which unlike a time does not depend on the machine's load.
    pub blocks_per_call: f64,
    pub rows: i64,
}

fn connect(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("the store's database answers")
}

/// Creates the extension in `url`'s database if needed and forgets every
/// statement counted so far (in the whole cluster).
pub fn reset(url: &str) {
    let mut c = connect(url);
    c.batch_execute(
        "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset();",
    )
    .expect("pg_stat_statements is loaded (signals_testpg::Options)");
}

/// The statements run in `url`'s database since the last [`reset`], most
/// total time first (this module's own queries left out).
pub fn read(url: &str) -> Vec<Statement> {
    let mut c = connect(url);
    c.query(
        "SELECT query, calls, total_exec_time, mean_exec_time,
                (shared_blks_hit + shared_blks_read)::float8 / greatest(calls, 1), rows
         FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT LIKE '%pg_stat_statements%'
         ORDER BY total_exec_time DESC",
        &[],
    )
    .expect("pg_stat_statements answers")
    .iter()
    .map(|r| Statement {
        query: r.get(0),
        calls: r.get(1),
        total_ms: r.get(2),
        mean_ms: r.get(3),
        blocks_per_call: r.get(4),
        rows: r.get(5),
    })
    .collect()
}

/// Panics unless each of the store's `n` repositories has exactly one run.
pub fn assert_each_once(url: &str, n: usize) {
    let mut c = connect(url);
    let counts: BTreeMap<String, i64> = c
        .query(
            "SELECT r.group_id || '/' || r.repo_id, count(u.id)
             FROM repositories r LEFT JOIN runs u ON u.repo = r.key GROUP BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(counts.len(), n, "repositories in the store");
    let wrong: Vec<_> = counts.iter().filter(|(_, c)| **c != 1).collect();
    assert!(
        wrong.is_empty(),
        "repositories not collected exactly once: {wrong:?}"
    );
}

/// A statement's text on one line.
pub fn one_line(query: &str) -> String {
    query.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A statement's text on one line, cut to `max` characters.
pub fn short(query: &str, max: usize) -> String {
    let one = one_line(query);
    if one.chars().count() <= max {
        one
    } else {
        format!("{}…", one.chars().take(max).collect::<String>())
    }
}

/// Prints the top statements of a round of `n` repositories against the
/// same statements in a round of `m`, as a Markdown table.
pub fn table(big: &[Statement], n: usize, small: &[Statement], m: usize) {
    let by_text: BTreeMap<&str, &Statement> = small.iter().map(|s| (s.query.as_str(), s)).collect();
    let total = |all: &[Statement]| all.iter().map(|s| s.calls).sum::<i64>();
    println!(
        "## Statements of the 4-worker round, from pg_stat_statements: {n} repositories against {m}\n"
    );
    println!(
        "All statements: {:.1} per repository at {n}, {:.1} at {m} ({} and {} distinct).\n",
        total(big) as f64 / n as f64,
        total(small) as f64 / m as f64,
        big.len(),
        small.len()
    );
    println!(
        "| statement | calls | per repository | mean at {n} | blocks per call at {n} | per repository at {m} | mean at {m} | blocks per call at {m} |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    // The top 15, and the claim wherever it ranks.
    let shown = big
        .iter()
        .enumerate()
        .filter(|(i, s)| *i < 15 || s.query.contains("UPDATE leases l SET worker"))
        .map(|(_, s)| s);
    for s in shown {
        let (per, mean, blocks) = by_text
            .get(s.query.as_str())
            .map(|o| {
                (
                    format!("{:.2}", o.calls as f64 / m as f64),
                    format!("{:.3} ms", o.mean_ms),
                    format!("{:.1}", o.blocks_per_call),
                )
            })
            .unwrap_or_else(|| ("–".into(), "–".into(), "–".into()));
        println!(
            "| `{}` | {} | {:.2} | {:.3} ms | {:.1} | {per} | {mean} | {blocks} |",
            short(&s.query, 90).replace('|', "\\|"),
            s.calls,
            s.calls as f64 / n as f64,
            s.mean_ms,
            s.blocks_per_call,
        );
    }
}
