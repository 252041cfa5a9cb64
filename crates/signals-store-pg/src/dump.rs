//! Dumps and loads (`signals migrate`): every row of every table, ids
//! kept. A load streams rows into `COPY ... FROM STDIN (FORMAT binary)`,
//! table by table, in one transaction, then moves each identity past the
//! largest id copied, so new rows get new ids.

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use signals_store::dump::{ColumnType, Dump, Record, Table, TableCounts, Value};
use signals_store::{Result, StoreError};

use crate::PgStore;

/// A dump value as a typed parameter (NULL fits any type).
#[derive(Debug)]
struct Param<'a>(&'a Value);

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => i.to_sql(ty, out),
            Value::Text(t) => t.to_sql(ty, out),
            Value::Blob(b) => b.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [Type::INT8, Type::TEXT, Type::BYTEA].contains(ty)
    }

    to_sql_checked!();
}

fn pg_type(c: ColumnType) -> Type {
    match c {
        ColumnType::Int => Type::INT8,
        ColumnType::Text => Type::TEXT,
        ColumnType::Blob => Type::BYTEA,
    }
}

/// The identity column of a table, if it has one.
fn identity(table: Table) -> Option<&'static str> {
    match table {
        Table::Groups
        | Table::HttpCache
        | Table::RateLimits
        | Table::Owners
        | Table::OwnerRepos
        | Table::ItemKeys
        | Table::ItemRefs
        | Table::ReferenceMarks
        | Table::Comments
        | Table::Lifecycle
        | Table::AssetDownloads
        | Table::Merges
        | Table::Events => None,
        Table::Repositories => Some("key"),
        _ => Some("id"),
    }
}

impl Dump for PgStore {
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        for table in Table::ALL {
            let columns = table.columns();
            let mut failed = None;
            self.each_row(
                "reading the store to copy it",
                &format!(
                    "SELECT {} FROM {} ORDER BY {}",
                    table.column_list(),
                    table.name(),
                    table.order_by()
                ),
                &[],
                |r| {
                    let mut values = Vec::with_capacity(columns.len());
                    for (i, (_, ty)) in columns.iter().enumerate() {
                        values.push(
                            match ty {
                                ColumnType::Int => r.get::<_, Option<i64>>(i).map(Value::Int),
                                ColumnType::Text => r.get::<_, Option<String>>(i).map(Value::Text),
                                ColumnType::Blob => r.get::<_, Option<Vec<u8>>>(i).map(Value::Blob),
                            }
                            .unwrap_or(Value::Null),
                        );
                    }
                    if let Err(e) = sink(Record { table, values }) {
                        failed = Some(e);
                    }
                    Ok(())
                },
            )?;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()> {
        if self.table_counts()?.iter().any(|(_, n)| *n > 0) {
            return Err(StoreError::NotEmpty {
                store: self.shown.clone(),
            });
        }
        let err = self.err("loading a copied store");
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(&err)?;
        let mut records = records.peekable();
        for table in Table::ALL {
            let columns = table.columns();
            let types: Vec<Type> = columns.iter().map(|(_, t)| pg_type(*t)).collect();
            let sink = tx
                .copy_in(&format!(
                    "COPY {} ({}) FROM STDIN (FORMAT binary)",
                    table.name(),
                    table.column_list()
                ))
                .map_err(&err)?;
            let mut writer = BinaryCopyInWriter::new(sink, &types);
            while let Some(next) =
                records.next_if(|r| r.as_ref().map_or(true, |r| r.table == table))
            {
                let record = next?;
                if record.values.len() != columns.len() {
                    return Err(self.corrupt(format!(
                        "a copied {} row has {} values, not {}",
                        table.name(),
                        record.values.len(),
                        columns.len()
                    )));
                }
                let params: Vec<Param<'_>> = record.values.iter().map(Param).collect();
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                writer.write(&refs).map_err(&err)?;
            }
            writer.finish().map_err(&err)?;
            if let Some(column) = identity(table) {
                tx.execute(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence('{0}', '{1}'),
                                       COALESCE((SELECT max({1}) FROM {0}), 0) + 1, false)",
                        table.name(),
                        column
                    ),
                    &[],
                )
                .map_err(&err)?;
            }
        }
        if let Some(left) = records.next() {
            let table = left.map(|r| r.table.name()).unwrap_or("?");
            return Err(self.corrupt(format!(
                "a copied {table} row came out of table order; copy from a dump"
            )));
        }
        // Every repository is in the queue, last attempted at its last run.
        tx.execute(
            "INSERT INTO leases (repo, last_attempt)
             SELECT r.key, (SELECT max(collected_at::timestamptz) FROM runs WHERE repo = r.key)
             FROM repositories r",
            &[],
        )
        .map_err(&err)?;
        // The repositories' totals are not copied: they are recounted from
        // the rows copied, so they equal them whatever the source.
        if self.keeps_totals {
            crate::totals::recount(self, &mut tx)?;
        }
        tx.commit().map_err(&err)
    }

    fn table_counts(&self) -> Result<TableCounts> {
        let mut out = Vec::new();
        for table in Table::ALL {
            let n: i64 = self
                .query_opt(
                    "counting rows",
                    &format!("SELECT count(*) FROM {}", table.name()),
                    &[],
                )?
                .map(|r| r.get(0))
                .unwrap_or(0);
            out.push((table.name(), n.max(0) as u64));
        }
        Ok(out)
    }
}
