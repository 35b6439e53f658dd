/**
 * What is shown of finished results: the text tables ({@link dev.peregrine.bench.report.Table},
 * {@link dev.peregrine.bench.report.LatencyTable}), the summary with its ratios to the best peer and to the
 * floor ({@link dev.peregrine.bench.report.Summary}), the JSON document
 * ({@link dev.peregrine.bench.report.JsonResults}), and the self-contained HTML report with its SVG charts
 * ({@link dev.peregrine.bench.report.HtmlReport}).
 *
 * <p>What goes here: a new table, chart or output format. Nothing here measures; it reads
 * {@link dev.peregrine.bench.run.RunResult}s and the floors.
 *
 * <p>Threading: plain functions of finished results, called on the command's thread after the runs; they keep
 * no state between calls and return text (the caller writes the files).
 */
package dev.peregrine.bench.report;
