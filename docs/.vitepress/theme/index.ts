// The default theme with a few rules of our own (custom.css).
import DefaultTheme from "vitepress/theme";
import "./custom.css";

export default DefaultTheme;
