//! Checks of the charts: their scales, labels and data tables.

use super::*;

#[test]
fn axis_tops_are_round() {
    assert_eq!(nice_max(0.0), 1.0);
    assert_eq!(nice_max(3.0), 5.0);
    assert_eq!(nice_max(7.0), 10.0);
    assert_eq!(nice_max(11.0), 20.0);
    assert_eq!(nice_max(201.0), 500.0);
    // Every axis top fits in four characters.
    for (top, label) in [
        (5.0, "5"),
        (500.0, "500"),
        (1_000.0, "1k"),
        (50_000.0, "50k"),
        (500_000.0, "500k"),
        (2_000_000.0, "2M"),
    ] {
        assert_eq!(axis_num(top), label);
    }
}

/// The chart colours of the stylesheet, in light and in dark, stand
/// out from the page and card backgrounds at AA's 4.5:1 at least.
#[test]
fn chart_colours_pass_aa_contrast_in_light_and_dark() {
    fn values(css: &str, var: &str) -> Vec<[f64; 3]> {
        css.match_indices(&format!("{var}: #"))
            .map(|(at, m)| {
                let hex = &css[at + m.len()..at + m.len() + 6];
                let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap() as f64;
                [c(0), c(2), c(4)]
            })
            .collect()
    }
    fn lum(c: [f64; 3]) -> f64 {
        let f = |v: f64| {
            let v = v / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
    }
    let ratio = |a, b| {
        let (x, y) = (lum(a), lum(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    };
    let css = crate::index::STYLESHEET;
    let backgrounds = [values(css, "--bg"), values(css, "--card")];
    for var in ["--s1", "--s2", "--s3", "--warn", "--muted"] {
        let colours = values(css, var);
        assert_eq!(colours.len(), 2, "{var}: one light, one dark value");
        for (scheme, colour) in colours.iter().enumerate() {
            for bg in &backgrounds {
                let r = ratio(*colour, bg[scheme]);
                assert!(r >= 4.5, "{var} in scheme {scheme}: {r:.2}:1");
            }
        }
    }
}

#[test]
fn text_is_escaped_for_svg() {
    assert_eq!(
        esc("<a href=\"x\">&'"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
    );
}

#[test]
fn a_line_breaks_where_a_value_is_unknown() {
    let line = Line {
        name: "x",
        class: "s1",
        points: vec![(50.0, Some(1.0)), (60.0, None), (70.0, Some(2.0))],
    };
    let svg = line_chart("c", "T", "D", &[], &[line]);
    assert!(svg.contains("d=\"M50.0 "), "{svg}");
    assert!(svg.contains(" M70.0 "), "{svg}");
    assert!(!svg.contains("L70.0"), "{svg}");
    assert!(svg.contains("<title id=\"c-t\">T</title><desc id=\"c-d\">D</desc>"));
}
