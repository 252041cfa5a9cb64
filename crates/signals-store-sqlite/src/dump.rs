//! Dumps and loads on SQLite (`signals migrate`): every table streamed in
//! key order, loaded in one transaction.

use std::path::Path;

use rusqlite::types::ValueRef;
use signals_store::dump::{Dump, Record, Table, TableCounts, Value};
use signals_store::{Result, StoreError};

use crate::Store;
use crate::error::DbContext;

impl Dump for Store {
    /// One table after the other, rows streamed in key order.
    fn dump(&self, sink: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        let path = self.path();
        let doing = "reading the store to copy it";
        for table in Table::ALL {
            let columns = table.columns();
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT {} FROM {} ORDER BY {}",
                    table.column_list(),
                    table.name(),
                    table.order_by()
                ))
                .doing(path, doing)?;
            let mut rows = stmt.query([]).doing(path, doing)?;
            while let Some(row) = rows.next().doing(path, doing)? {
                let mut values = Vec::with_capacity(columns.len());
                for (i, (column, _)) in columns.iter().enumerate() {
                    let value = row.get_ref(i).doing(path, doing)?;
                    values.push(value_of(path, table, column, value)?);
                }
                sink(Record { table, values })?;
            }
        }
        Ok(())
    }

    /// In one transaction.
    fn load(&mut self, records: &mut dyn Iterator<Item = Result<Record>>) -> Result<()> {
        let path = self.path.clone();
        let doing = "loading a copied store";
        if self.table_counts()?.iter().any(|(_, n)| *n > 0) {
            return Err(StoreError::NotEmpty {
                store: path.display().to_string(),
            });
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .doing(&path, doing)?;
        for record in records {
            let record = record?;
            let table = record.table;
            let sql = format!(
                "INSERT INTO {} ({}) VALUES ({})",
                table.name(),
                table.column_list(),
                (1..=table.columns().len())
                    .map(|i| format!("?{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let mut stmt = tx.prepare_cached(&sql).doing(&path, doing)?;
            let params: Vec<rusqlite::types::Value> = record
                .values
                .into_iter()
                .map(|v| match v {
                    Value::Null => rusqlite::types::Value::Null,
                    Value::Int(i) => rusqlite::types::Value::Integer(i),
                    Value::Text(t) => rusqlite::types::Value::Text(t),
                    Value::Blob(b) => rusqlite::types::Value::Blob(b),
                })
                .collect();
            stmt.execute(rusqlite::params_from_iter(params))
                .doing(&path, doing)?;
        }
        // The repositories' totals are not copied: they are recounted
        // from the rows copied, so they equal them whatever the source.
        if self.keeps_totals {
            crate::totals::recount(&tx, &path)?;
        }
        tx.commit().doing(&path, doing)
    }

    fn table_counts(&self) -> Result<TableCounts> {
        let mut out = Vec::new();
        for table in Table::ALL {
            let n: i64 = self
                .conn
                .query_row(&format!("SELECT count(*) FROM {}", table.name()), [], |r| {
                    r.get(0)
                })
                .doing(self.path(), "counting rows")?;
            out.push((table.name(), n.max(0) as u64));
        }
        Ok(out)
    }
}

fn value_of(path: &Path, table: Table, column: &str, value: ValueRef<'_>) -> Result<Value> {
    Ok(match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Text(t) => {
            Value::Text(
                String::from_utf8(t.to_vec()).map_err(|_| StoreError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("{}.{column} is not UTF-8", table.name()),
                })?,
            )
        }
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        ValueRef::Real(_) => {
            return Err(StoreError::Corrupt {
                path: path.to_path_buf(),
                what: format!("{}.{column} holds a floating-point number", table.name()),
            });
        }
    })
}
