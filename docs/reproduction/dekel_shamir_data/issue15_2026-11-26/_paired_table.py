"""The markdown table of paired differences shared by this folder's table scripts."""


def paired_table(diffs, key, title, levels):
    """One row per ``key`` value of a paired-differences frame (mean [95 % interval] per level,
    bold where the interval excludes 0), under a header ``title`` and the levels."""
    lines = [f"| {title} \\ N | " + " | ".join(f"{lv:g}" for lv in levels) + " |",
             "|---" * (len(levels) + 1) + "|"]
    for name, part in diffs.groupby(key, sort=False):
        cells = []
        for r in part.sort_values("level").itertuples():
            text = f"{r.mean:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]".replace("-", "−")
            cells.append(f"**{text}**" if r.ci_low > 0 or r.ci_high < 0 else text)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
