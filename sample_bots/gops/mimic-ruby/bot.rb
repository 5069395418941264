#!/usr/bin/env ruby
# GOPS bot for the 2007 quiz's plain-text referee: bid the prize card's value.
# Written in the quiz's style; it runs unchanged under Arena's gops-text wire.

while line = $stdin.gets
  next unless line =~ /Competition card/
  prize = line[/\d+/].to_i
  puts prize
  $stdout.flush
end
