//! Reading the CSV rows the benchmarks write (`benches/common/record.rs`): header
//! `bench,metric,method,procs,size,xunit,unit,reps,median,min,max,ratio`, fields with commas
//! in double quotes, an empty ratio where there is no plain MPI baseline.

use std::path::Path;

/// One summarised measurement: `median`, `min`, `max` over `reps` repetitions, in `unit`.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub bench: String,
    pub metric: String,
    pub method: String,
    pub procs: u32,
    pub size: u64,
    pub xunit: String,
    pub unit: String,
    pub reps: u32,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Median over plain MPI's median for the same metric and size, when there is one.
    pub ratio: Option<f64>,
}

impl Row {
    /// Whether larger values are better (rates and bandwidths) rather than smaller (times, memory).
    pub fn higher_is_better(&self) -> bool {
        self.unit.ends_with("/s")
    }
}

/// Splits one CSV line into fields, honouring double quotes (`""` inside quotes is a quote).
pub fn split_line(line: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// Parses the text of one CSV file; `what` names it in errors.
pub fn parse(text: &str, what: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().ok_or_else(|| format!("{what}: empty"))?;
    if !header.starts_with("bench,metric,method,procs,size") {
        return Err(format!("{what}: unexpected header {header:?}"));
    }
    lines
        .enumerate()
        .map(|(n, line)| {
            let f = split_line(line);
            let bad = |field: &str| format!("{what} line {}: bad {field} in {line:?}", n + 2);
            if f.len() != 12 {
                return Err(bad("field count"));
            }
            let num = |i: usize, name: &str| f[i].parse::<f64>().map_err(|_| bad(name));
            Ok(Row {
                bench: f[0].clone(),
                metric: f[1].clone(),
                method: f[2].clone(),
                procs: f[3].parse().map_err(|_| bad("procs"))?,
                size: f[4].parse().map_err(|_| bad("size"))?,
                xunit: f[5].clone(),
                unit: f[6].clone(),
                reps: f[7].parse().map_err(|_| bad("reps"))?,
                median: num(8, "median")?,
                min: num(9, "min")?,
                max: num(10, "max")?,
                ratio: if f[11].is_empty() { None } else { Some(num(11, "ratio")?) },
            })
        })
        .collect()
}

/// Every row of every `*.csv` file in `dir`, files in name order.
pub fn read_dir(dir: &Path) -> Result<Vec<Row>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        rows.extend(parse(&text, &f.display().to_string())?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "bench,metric,method,procs,size,xunit,unit,reps,median,min,max,ratio\n";

    #[test]
    fn quoted_fields_and_empty_ratio() {
        let text = format!(
            "{HEADER}pingpong,latency,\"plain MPI, 2 processes\",2,8,bytes,us,7,0.5,0.4,0.9,1.0000\n\
             creation,memory per endpoint,\"EP \"\"x\"\", 1\",1,64,count,KiB,1,7.5,7.5,7.5,\n"
        );
        let rows = parse(&text, "t").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].method, "plain MPI, 2 processes");
        assert_eq!((rows[0].size, rows[0].median, rows[0].ratio), (8, 0.5, Some(1.0)));
        assert_eq!(rows[1].method, "EP \"x\", 1");
        assert_eq!(rows[1].ratio, None);
        assert!(!rows[1].higher_is_better());
    }

    #[test]
    fn rejects_bad_rows() {
        assert!(parse("nonsense\n", "t").is_err());
        assert!(parse(&format!("{HEADER}a,b,c,2,8,bytes,us,7,x,0.4,0.9,\n"), "t").is_err());
        assert!(parse(&format!("{HEADER}a,b,c,2,8\n"), "t").is_err());
    }
}
