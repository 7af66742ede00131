/** The metric catalogue (docs/DESIGN.md §6): the metric type, the built-in metrics, checking and reducing them. */
export * from "./aggregate";
export * from "./builtin";
export * from "./catalogue";
export * from "./check";
export * from "./metric";
