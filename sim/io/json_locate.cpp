// Where a value sits in a JSON text (json_document.hpp: json_value_offset): a walk over the text's
// tokens along a JSON pointer, skipping every other value. The text has already been parsed, so the walk
// trusts its syntax; it never reads past the end.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/io/json_document.hpp"

namespace plansim {
namespace {

size_t skip_space(const std::string& t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i;
}

// The index after the value starting at t[i].
size_t skip_value(const std::string& t, size_t i) {
  if (i >= t.size()) return t.size();
  if (t[i] == '"') return json_string_end(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    for (; i < t.size(); ++i) {
      if (t[i] == '"') {
        i = json_string_end(t, i) - 1;
      } else if (t[i] == '{' || t[i] == '[') {
        ++depth;
      } else if ((t[i] == '}' || t[i] == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return t.size();
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\n' && t[i] != '\r' &&
         t[i] != '\t')
    ++i;
  return i;
}

// Pointer tokens with ~1 and ~0 decoded (RFC 6901).
std::vector<std::string> tokens_of(const std::string& pointer) {
  std::vector<std::string> out;
  for (size_t i = 0; i < pointer.size();) {
    const size_t end = std::min(pointer.find('/', i + 1), pointer.size());
    std::string tok = pointer.substr(i + 1, end - i - 1);
    for (size_t p; (p = tok.find("~1")) != std::string::npos;) tok.replace(p, 2, "/");
    for (size_t p; (p = tok.find("~0")) != std::string::npos;) tok.replace(p, 2, "~");
    out.push_back(tok);
    i = end;
  }
  return out;
}

}  // namespace

size_t json_string_end(const std::string& t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

std::string json_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

size_t json_value_offset(const std::string& text, const std::string& pointer) {
  size_t i = skip_space(text, 0);
  for (const std::string& token : tokens_of(pointer)) {
    if (i >= text.size()) return std::string::npos;
    if (text[i] == '{') {
      i = skip_space(text, i + 1);
      bool found = false;
      while (!found && i < text.size() && text[i] == '"') {
        const size_t key_end = json_string_end(text, i);
        std::string key;
        try {
          key = nlohmann::json::parse(text.substr(i, key_end - i)).get<std::string>();
        } catch (const nlohmann::json::exception&) {
          return std::string::npos;
        }
        i = skip_space(text, key_end);
        if (i < text.size() && text[i] == ':') i = skip_space(text, i + 1);
        if (key == token) {
          found = true;
        } else {
          i = skip_space(text, skip_value(text, i));
          if (i < text.size() && text[i] == ',') i = skip_space(text, i + 1);
        }
      }
      if (!found) return std::string::npos;
    } else if (text[i] == '[') {
      size_t index = 0;
      try {
        index = std::stoul(token);
      } catch (const std::exception&) {
        return std::string::npos;
      }
      i = skip_space(text, i + 1);
      for (size_t k = 0; k < index; ++k) {
        if (i >= text.size() || text[i] == ']') return std::string::npos;
        i = skip_space(text, skip_value(text, i));
        if (i < text.size() && text[i] == ',') i = skip_space(text, i + 1);
      }
      if (i >= text.size() || text[i] == ']') return std::string::npos;
    } else {
      return std::string::npos;
    }
  }
  return i;
}

std::vector<size_t> json_element_offsets(const std::string& text, const std::string& pointer) {
  std::vector<size_t> out;
  size_t i = json_value_offset(text, pointer);
  if (i == std::string::npos || i >= text.size() || text[i] != '[') return out;
  for (i = skip_space(text, i + 1); i < text.size() && text[i] != ']';) {
    out.push_back(i);
    i = skip_space(text, skip_value(text, i));
    if (i < text.size() && text[i] == ',') i = skip_space(text, i + 1);
  }
  return out;
}

}  // namespace plansim
