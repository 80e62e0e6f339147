//! Colour-blind safe palettes: Okabe-Ito (categories), viridis (sequential), ColorBrewer RdBu
//! reversed (diverging, blue - white - red).

use crate::ColorScale;

/// An 8-bit sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// WCAG relative luminance (0 black .. 1 white).
    pub fn luminance(self) -> f64 {
        fn lin(c: u8) -> f64 {
            let c = c as f64 / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        }
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    /// Black or white, whichever reads better on this background.
    pub fn text_color(self) -> Rgb {
        // Contrast with black (L + 0.05) / 0.05 beats contrast with white 1.05 / (L + 0.05)
        // above L ~ 0.179.
        if self.luminance() > 0.179 {
            Rgb(0, 0, 0)
        } else {
            Rgb(255, 255, 255)
        }
    }

    /// `self` blended towards `other` by `t` (0 = self, 1 = other).
    pub fn mix(self, other: Rgb, t: f64) -> Rgb {
        Rgb(lerp_u8(self.0, other.0, t), lerp_u8(self.1, other.1, t), lerp_u8(self.2, other.2, t))
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }
}

fn lerp_u8(a: u8, b: u8, t: f64) -> u8 {
    (a as f64 + (b as f64 - a as f64) * t).round().clamp(0.0, 255.0) as u8
}

/// The Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"), ordered for contrast on
/// white: blue, orange, bluish green, vermillion, sky blue, reddish purple, yellow, black.
pub const OKABE_ITO: [Rgb; 8] = [
    Rgb(0x00, 0x72, 0xB2),
    Rgb(0xE6, 0x9F, 0x00),
    Rgb(0x00, 0x9E, 0x73),
    Rgb(0xD5, 0x5E, 0x00),
    Rgb(0x56, 0xB4, 0xE9),
    Rgb(0xCC, 0x79, 0xA7),
    Rgb(0xF0, 0xE4, 0x42),
    Rgb(0x00, 0x00, 0x00),
];

/// The `i`-th categorical colour (Okabe-Ito, cycling after 8).
pub fn okabe_ito(i: usize) -> Rgb {
    OKABE_ITO[i % OKABE_ITO.len()]
}

/// Viridis at `k / 16`, k = 0..=16 (matplotlib 3.11.2 `colormaps["viridis"]`).
const VIRIDIS: [[u8; 3]; 17] = [
    [68, 1, 84],
    [72, 24, 106],
    [71, 45, 123],
    [66, 64, 134],
    [59, 82, 139],
    [51, 99, 141],
    [44, 114, 142],
    [38, 130, 142],
    [33, 145, 140],
    [31, 160, 136],
    [40, 174, 128],
    [63, 188, 115],
    [94, 201, 98],
    [132, 212, 75],
    [173, 220, 48],
    [216, 226, 25],
    [253, 231, 37],
];

/// ColorBrewer RdBu, 11 classes, reversed: dark blue .. #F7F7F7 .. dark red.
const RDBU_R: [[u8; 3]; 11] = [
    [0x05, 0x30, 0x61],
    [0x21, 0x66, 0xAC],
    [0x43, 0x93, 0xC3],
    [0x92, 0xC5, 0xDE],
    [0xD1, 0xE5, 0xF0],
    [0xF7, 0xF7, 0xF7],
    [0xFD, 0xDB, 0xC7],
    [0xF4, 0xA5, 0x82],
    [0xD6, 0x60, 0x4D],
    [0xB2, 0x18, 0x2B],
    [0x67, 0x00, 0x1F],
];

fn interpolate(stops: &[[u8; 3]], t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (stops.len() - 1) as f64;
    let i = (pos.floor() as usize).min(stops.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (stops[i], stops[i + 1]);
    Rgb(a[0], a[1], a[2]).mix(Rgb(b[0], b[1], b[2]), f)
}

/// Viridis at `t` in 0..1 (clamped), linear between 17 stops.
pub fn viridis(t: f64) -> Rgb {
    interpolate(&VIRIDIS, t)
}

/// The diverging scale at `t` in 0..1 (clamped): 0 dark blue, 0.5 white (#F7F7F7), 1 dark red.
pub fn diverging_color(t: f64) -> Rgb {
    interpolate(&RDBU_R, t)
}

impl ColorScale {
    /// Position of `value` on the scale, 0..1 (clamped); a diverging scale puts `center` at 0.5.
    pub fn position(&self, value: f64) -> f64 {
        let t = match *self {
            ColorScale::Sequential { min, max } => (value - min) / (max - min),
            ColorScale::Diverging { min, center, max } => {
                if value < center {
                    0.5 * (value - min) / (center - min)
                } else {
                    0.5 + 0.5 * (value - center) / (max - center)
                }
            }
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.5
        }
    }

    /// The colour of `value`.
    pub fn color(&self, value: f64) -> Rgb {
        let t = self.position(value);
        match self {
            ColorScale::Sequential { .. } => viridis(t),
            ColorScale::Diverging { .. } => diverging_color(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_ends_and_centre() {
        assert_eq!(viridis(0.0), Rgb(68, 1, 84));
        assert_eq!(viridis(1.0), Rgb(253, 231, 37));
        assert_eq!(viridis(2.0), Rgb(253, 231, 37));
        let d = ColorScale::Diverging { min: -1.0, center: 0.0, max: 2.0 };
        assert_eq!(d.color(0.0), Rgb(0xF7, 0xF7, 0xF7));
        assert_eq!(d.color(-1.0), Rgb(0x05, 0x30, 0x61));
        assert_eq!(d.color(2.0), Rgb(0x67, 0x00, 0x1F));
        assert!((d.position(1.0) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn text_colour_by_luminance() {
        assert_eq!(viridis(0.0).text_color(), Rgb(255, 255, 255));
        assert_eq!(viridis(1.0).text_color(), Rgb(0, 0, 0));
        assert_eq!(okabe_ito(9), OKABE_ITO[1]);
    }
}
