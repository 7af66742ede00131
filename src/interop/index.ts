/** hsearch's records in the formats the field reads: trajectories as ATIF (Harbor), evaluations as Inspect AI eval logs. */
export { ATIF_VERSION, type AtifOptions, type AtifTrajectory, toAtif } from "./atif";
export { INSPECT_LOG_VERSION, type InspectEpisode, type InspectLogInput, toInspectLog } from "./inspect-log";
