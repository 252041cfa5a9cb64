//! TEMPORARY local shim (not to be committed).
use std::process::Command;
pub struct Cluster {
    dir: std::path::PathBuf,
    port: u16,
    bin: String,
}
impl Cluster {
    pub fn start() -> Result<Option<Cluster>, String> {
        let bin = "/usr/lib/postgresql/15/bin".to_string();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("shim-pg-{port}"));
        std::fs::create_dir_all(&dir).unwrap();
        Command::new("chown")
            .arg("postgres")
            .arg(&dir)
            .status()
            .unwrap();
        let data = dir.join("data");
        let ok = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{bin}/initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres"])
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
        let ok = Command::new("runuser").args(["-u","postgres","--"]).arg(format!("{bin}/pg_ctl")).arg("-D").arg(&data).arg("-o").arg(format!("-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off -c max_connections=200", dir.display())).arg("-l").arg(dir.join("log")).args(["-w","start"]).output().unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
        Ok(Some(Cluster { dir, port, bin }))
    }
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        let ok = Command::new(format!("{}/createdb", self.bin))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                name,
            ])
            .output()
            .unwrap();
        if !ok.status.success() {
            return Err(String::from_utf8_lossy(&ok.stderr).into());
        }
        Ok(format!(
            "postgres://postgres@127.0.0.1:{}/{name}",
            self.port
        ))
    }
    pub fn port(&self) -> u16 {
        self.port
    }
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}
impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{}/pg_ctl", self.bin))
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
