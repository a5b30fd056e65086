/// The version of this Ciao package, following semantic versioning (https://semver.org):
/// a release that changes the public API incompatibly raises the major number.
public enum CiaoVersion {
    /// The version as text, e.g. `0.1.0`; `-dev` marks what has come since the last release.
    public static let current = "0.1.0"
}
