"""robustclf: classifiers that keep working when features go missing or get corrupted.

Estimators trained to hedge against deleted or corrupted features, tools that measure how any
model degrades under random, grouped and worst-case corruption, and reproductions of the papers
behind them.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
