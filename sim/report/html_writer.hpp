#pragma once
// The pieces of a `plansim report` page (html_page.hpp): escaping, inlined SVG, figures with their
// units and links to the page's definitions (README "Definitions"). Every text taken from a JSON
// document goes through html_escape: scenario names and notes are user input.
#include <string>
#include <string_view>
#include <vector>

namespace plansim::html {

// &, <, >, " and ' as character references: safe in element content and quoted attributes.
std::string escape(std::string_view text);

// An SVG document ready to inline in HTML: the XML prolog, DOCTYPE and comments before <svg> removed,
// the xmlns attributes of the root dropped (HTML's parser supplies them; the page then names no URL),
// scripts and the root's onload dropped (gnuplot's `mouse` option would load gnuplot_svg.js),
// and every id (and every reference to one: href="#id", url(#id)) prefixed with `prefix`, so that two
// pictures that reuse gnuplot's ids (gnuplot_canvas, gpPt0, ...) stay apart.
std::string inline_svg(std::string_view svg, const std::string& prefix);

// A term of the page's definitions section (README "Definitions"), linked from the figures.
struct Definition {
  const char* id;  // anchor: "def-<id>"
  const char* term;
  const char* text;
};
const std::vector<Definition>& definitions();
// `label` linked to the definition `id` (its text as a tooltip); the label alone when id is unknown.
std::string defined(const std::string& label, const std::string& id);
// The definitions section (<section id="definitions">).
std::string definitions_section();

// A row of a summary table: what (linked to a definition when def_id is not empty), value, unit.
std::string summary_row(const std::string& what_html, const std::string& value, const std::string& unit,
                        const std::string& css_class = "");

// A row of prose (a finding's what/where/why): what, then the text over the value and unit columns.
std::string text_row(const std::string& what_html, const std::string& text_html);

// Numbers as the page prints them.
std::string fixed(double v, int decimals);               // "12.35"
std::string percent(double fraction, int decimals = 1);  // 0.1234 -> "12.3"

// A visible note in place of a figure (or anything else) that could not be produced.
std::string note_box(const std::string& text_html);

}  // namespace plansim::html
