/** The self-awareness study as one command: its file, its plan (a DAG of steps), its tables and its report. */
export * from "./plan";
export * from "./report";
export * from "./results";
export * from "./study-schema";
export * from "./table";
export * from "./tables";
