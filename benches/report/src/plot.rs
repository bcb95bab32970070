//! PNG plots of one (benchmark, metric): the median against the size on log-log axes, one line
//! per method, with a bar from min to max. Text needs a TrueType font read at run time
//! (`EPMPI_REPORT_FONT`, else a few usual system paths).

use crate::csv::Row;
use crate::table::distinct;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Usual places of a sans-serif TrueType font on Linux distributions.
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Line colours, one per method in order (plain MPI first in every benchmark).
const COLORS: &[RGBColor] = &[
    RGBColor(0, 0, 0),
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
];

/// A log-axis tick label: bytes in decimal units (ticks fall on powers of ten), else the number.
fn axis_text(x: f64, xunit: &str) -> String {
    match xunit {
        "bytes" if x >= 1e6 => format!("{} MB", x / 1e6),
        "bytes" if x >= 1e3 => format!("{} kB", x / 1e3),
        "bytes" => format!("{x} B"),
        _ => format!("{x}"),
    }
}

/// Registers a font for the plots' text; the path used, or None when none was found.
pub fn register_font() -> Option<PathBuf> {
    let mut paths: Vec<PathBuf> = std::env::var_os("EPMPI_REPORT_FONT").map(PathBuf::from).into_iter().collect();
    paths.extend(FONT_PATHS.iter().map(PathBuf::from));
    let path = paths.into_iter().find(|p| p.is_file())?;
    let bytes: &'static [u8] = Box::leak(std::fs::read(&path).ok()?.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).ok()?;
    Some(path)
}

/// Whether a group is worth a plot: at least 3 positive sizes of bytes or endpoints.
pub fn plottable(group: &[&Row]) -> bool {
    let sizes = distinct(group, |r| r.size);
    group[0].xunit != "count" && sizes.len() >= 3 && sizes.iter().all(|&s| s > 0)
}

/// A file name for a group: `<bench>-<metric>.png`, lower case, other characters as `-`.
pub fn file_name(group: &[&Row]) -> String {
    let raw = format!("{}-{}", group[0].bench, group[0].metric).to_lowercase();
    let slug: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("{}.png", slug.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-"))
}

/// Draws the plot of `group` with `title` into `path` (800 x 480 pixels).
pub fn draw(group: &[&Row], title: &str, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let first = group[0];
    let xs: Vec<f64> = group.iter().map(|r| r.size as f64).collect();
    let ys: Vec<f64> = group.iter().flat_map(|r| [r.min, r.median, r.max]).filter(|y| y.is_finite() && *y > 0.0).collect();
    let (x0, x1) = (xs.iter().cloned().fold(f64::MAX, f64::min), xs.iter().cloned().fold(0.0, f64::max));
    let (y0, y1) = (ys.iter().cloned().fold(f64::MAX, f64::min), ys.iter().cloned().fold(0.0, f64::max));
    let root = BitMapBackend::new(path, (800, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 / 1.5..x1 * 1.5).log_scale(), (y0 / 1.3..y1 * 1.3).log_scale())?;
    let xunit = first.xunit.clone();
    let x_desc = match xunit.as_str() {
        "bytes" => "message size",
        "ranks" => "ranks",
        _ => "endpoints per process",
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(format!("{} ({})", first.metric, first.unit))
        .light_line_style(WHITE)
        .x_label_formatter(&|x| axis_text(*x, &xunit))
        .y_label_formatter(&|y| crate::table::num(*y))
        .draw()?;
    for (i, method) in distinct(group, |r| r.method.clone()).into_iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut pts: Vec<&Row> = group.iter().copied().filter(|r| r.method == method).collect();
        pts.sort_by_key(|r| r.size);
        chart
            .draw_series(LineSeries::new(pts.iter().map(|r| (r.size as f64, r.median)), color.stroke_width(2)))?
            .label(method)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(pts.iter().map(|r| Circle::new((r.size as f64, r.median), 3, color.filled())))?;
        chart.draw_series(pts.iter().filter(|r| r.min > 0.0).map(|r| ErrorBar::new_vertical(r.size as f64, r.min, r.median, r.max, color, 6)))?;
    }
    let legend_pos = if first.higher_is_better() { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperLeft };
    chart.configure_series_labels().position(legend_pos).background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}
