// ECharts, only what the statistics wall draws (bar, line and pie charts on a canvas, with axes,
// legend and tooltip): importing from "echarts/core" keeps the screen's chunk small.
import { BarChart, type BarSeriesOption, LineChart, type LineSeriesOption, PieChart, type PieSeriesOption } from "echarts/charts";
import {
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from "echarts/components";
import { type ComposeOption, init, use } from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";

use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | PieSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption
>;

export { init };
