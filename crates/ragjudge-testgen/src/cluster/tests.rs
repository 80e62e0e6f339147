use super::*;
use ndarray::array;

#[test]
fn silhouette_by_hand_on_four_points() {
    // Two clusters on a line: {0, 1} and {4, 6}.
    // Point 0: a = 1, b = (4 + 6) / 2 = 5, s = 4/5. Point 1: a = 1, b = 4, s = 3/4.
    // Point 4: a = 2, b = (4 + 3) / 2 = 3.5, s = 1.5/3.5. Point 6: a = 2, b = 5.5, s = 3.5/5.5.
    let x = array![[0.0], [1.0], [4.0], [6.0]];
    let expected = (0.8 + 0.75 + 1.5 / 3.5 + 3.5 / 5.5) / 4.0;
    approx::assert_abs_diff_eq!(silhouette(&x, &[0, 0, 1, 1]).unwrap(), expected, epsilon = 1e-12);
    assert_eq!(silhouette(&x, &[0, 0, 0, 0]), None);
}

#[test]
fn dbscan_settings_are_checked() {
    let x = array![[0.0], [1.0]];
    assert!(dbscan(&x, 0.0, 2).unwrap_err().to_string().contains("eps > 0"));
    assert!(kmeans(&x, 3, 1, 0).unwrap_err().to_string().contains("k = 3"));
}
