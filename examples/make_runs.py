#!/usr/bin/env python3
"""Generate (and check) the bundled ragjudge example data.

All text below -- corpus passages, questions, gold answers and the answers of the four example
systems -- is hand-written for ragjudge. This script only assembles it into the files under
examples/: it picks each system's retrieved passages by a fixed rule (seeded, so the output is
always the same), looks up the relevance grade of every (question, passage) pair, turns passage-id
citations into [n] markers, and derives the human-label files from the quality class hand-assigned
to every answer.

    python3 examples/make_runs.py           # rewrite every file, then check them
    python3 examples/make_runs.py --check   # only check the files already there
"""

import csv
import io
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------

DOCS = [
    ("d01", "The water cycle", [
        "The water cycle, also called the hydrologic cycle, describes the continuous movement of water on, above and below the surface of the Earth. Water changes state between liquid, vapour and ice as it moves, but the total amount of water on the planet stays roughly constant over human timescales. The cycle is driven mainly by energy from the Sun and by gravity.",
        "Evaporation is the process by which liquid water turns into water vapour, mostly from the surface of the oceans, which hold about 97 percent of Earth's water. Plants also release water vapour through small pores in their leaves, a process called transpiration. Together the two are often called evapotranspiration. Sublimation, the direct change from ice to vapour, adds a smaller amount, for example from snowfields on dry, sunny, windy days.",
        "As moist air rises it expands and cools. When it cools to its dew point, water vapour condenses onto tiny particles such as dust, salt or smoke, forming the droplets that make up clouds. When the droplets or ice crystals in a cloud grow heavy enough, they fall to the ground as precipitation: rain, snow, sleet or hail.",
        "Precipitation that reaches the ground either soaks into the soil, a process called infiltration, or flows over the surface as runoff into streams, rivers and lakes. Infiltrated water can percolate deeper to recharge groundwater stored in aquifers, where it may remain for thousands of years. Eventually most of the water returns to the oceans, and the cycle begins again.",
    ]),
    ("d02", "Photosynthesis", [
        "Photosynthesis is the process by which plants, algae and some bacteria convert light energy into chemical energy. Using sunlight, they combine carbon dioxide and water to make glucose, releasing oxygen as a by-product. The overall reaction is often summarised as six molecules of carbon dioxide plus six molecules of water yielding one molecule of glucose and six molecules of oxygen.",
        "In plants, photosynthesis takes place in chloroplasts, organelles found mainly in the cells of leaves. Chloroplasts contain chlorophyll, a green pigment that absorbs red and blue light strongly and reflects green light, which is why leaves look green. Carbon dioxide enters the leaf through small pores called stomata, and water arrives from the roots through the xylem.",
        "The light-dependent reactions occur in the thylakoid membranes of the chloroplast. There, absorbed light energy is used to split water molecules, releasing oxygen, and the energy is captured in the carrier molecules ATP and NADPH. This splitting of water is the source of the oxygen that plants give off.",
        "The light-independent reactions, known as the Calvin cycle, take place in the stroma, the fluid surrounding the thylakoids. The enzyme RuBisCO fixes carbon dioxide onto a five-carbon sugar, and the energy stored in ATP and NADPH is used to build three-carbon sugars that the plant turns into glucose, sucrose and starch. RuBisCO is often described as the most abundant protein on Earth.",
    ]),
    ("d03", "The Rust borrow checker", [
        "Rust is a systems programming language that guarantees memory safety without a garbage collector. It does this through its ownership system: every value has a single owner, and when the owner goes out of scope the value is dropped and its memory is freed. Assigning a heap-allocated value such as a String to another variable moves ownership, and the original variable can no longer be used.",
        "Instead of transferring ownership, code can borrow a value through references. The borrow checker, part of the Rust compiler, enforces the rule that at any given time you may have either any number of shared (immutable) references, written &T, or exactly one mutable reference, written &mut T, but not both. This rule prevents data races at compile time.",
        "The borrow checker also ensures that references never outlive the data they point to, so dangling references cannot occur. It reasons about lifetimes, which describe the region of code for which a reference is valid. Most lifetimes are inferred by the compiler, but functions that return references derived from several inputs sometimes need explicit lifetime annotations such as 'a.",
        "Since the 2018 edition, Rust has used non-lexical lifetimes (NLL), which let the borrow checker end a borrow at the last point where the reference is used rather than at the end of its enclosing block. This accepts many correct programs that the earlier, purely lexical checker rejected. Because all of these checks happen at compile time, they add no runtime cost.",
        "Some designs need shared ownership or mutation through a shared reference. For these cases the standard library provides types such as Rc<T> for reference-counted shared ownership and RefCell<T> for interior mutability. RefCell moves the borrowing rules from compile time to run time: it tracks borrows while the program runs and panics if code takes a mutable borrow while another borrow is active.",
    ]),
    ("d04", "The history of the printing press", [
        "Around 1440, Johannes Gutenberg, a goldsmith from Mainz in Germany, developed a printing system based on movable metal type. His innovations included a hand mould for casting uniform letters from a lead-based alloy, an oil-based ink that adhered well to metal type, and a screw press adapted from the presses used to make wine and olive oil.",
        "Gutenberg's best-known work is the Gutenberg Bible, a Latin Bible printed in Mainz and completed around 1455. About 180 copies were printed, some on paper and some on vellum, and fewer than fifty survive today, many of them incomplete. It is often called the 42-line Bible because most of its pages have 42 lines per column.",
        "Movable type was not new in itself. In China, Bi Sheng made movable type from baked clay in the 1040s, and in Korea the Jikji, a Buddhist text printed with movable metal type in 1377, is the oldest surviving book of its kind. What set Gutenberg's system apart was its efficiency for alphabetic scripts and its combination of cast type with a press and suitable ink.",
        "Printing spread quickly. By 1500, presses were operating in more than 200 European towns and cities, and historians estimate that they had already produced around twenty million volumes. Cheaper books helped raise literacy, made it easier to share scientific results, and allowed the ideas of the Protestant Reformation, such as Martin Luther's writings from 1517 onward, to circulate widely.",
    ]),
    ("d05", "Vaccines and herd immunity", [
        "A vaccine trains the immune system to recognise a pathogen without causing the disease. It contains an antigen, such as a weakened or inactivated virus, a piece of a protein, or genetic instructions like messenger RNA that let the body's own cells make a viral protein. The immune system responds by producing antibodies and memory cells, so a later real infection is met with a faster, stronger response.",
        "The first vaccine was developed by the English physician Edward Jenner in 1796. He showed that material from cowpox sores could protect a boy, James Phipps, against smallpox. The word vaccine comes from the Latin vacca, meaning cow. Smallpox was declared eradicated by the World Health Organization in 1980 after a global vaccination campaign.",
        "Herd immunity, or community immunity, occurs when enough people in a population are immune to an infectious disease that it can no longer spread easily. This indirectly protects people who cannot be vaccinated, such as newborn babies or people with weakened immune systems. The share of the population that must be immune, called the herd immunity threshold, depends on how contagious the disease is.",
        "The threshold is commonly estimated as 1 - 1/R0, where R0, the basic reproduction number, is the average number of people one infected person would infect in a fully susceptible population. Measles is extremely contagious, with an R0 often put between 12 and 18, so roughly 92 to 94 percent of people need to be immune, and public health agencies aim for about 95 percent vaccination coverage. For a disease with an R0 of 2, the threshold is 50 percent.",
        "Vaccines are tested in clinical trials of increasing size before they are approved, and their safety continues to be monitored afterwards. Most side effects, such as a sore arm or a mild fever, are short-lived. Vaccination has sharply reduced diseases such as polio, measles and diphtheria, and the World Health Organization estimates that immunisation prevents millions of deaths every year.",
    ]),
    ("d06", "TCP and UDP", [
        "TCP (Transmission Control Protocol) and UDP (User Datagram Protocol) are the two main transport-layer protocols of the Internet protocol suite. Both run on top of IP and use port numbers to deliver data to the right application on a host, but they make very different trade-offs between reliability and speed.",
        "TCP is connection-oriented. Before sending data, the two hosts perform a three-way handshake: the client sends a SYN segment, the server replies with a SYN-ACK, and the client answers with an ACK. TCP then numbers every byte, acknowledges what it receives, retransmits lost segments and delivers data to the application in order, as a reliable byte stream.",
        "TCP also provides flow control, using a receive window so that a fast sender does not overwhelm a slow receiver, and congestion control, which slows the sender down when the network appears to be overloaded. These features make TCP suitable for web pages, email and file transfers, where every byte must arrive correctly.",
        "UDP is connectionless: it sends individual datagrams without a handshake, acknowledgements or retransmission, and it does not guarantee order or delivery. Its header is only 8 bytes long, compared with at least 20 bytes for TCP. The low overhead and the absence of retransmission delays make UDP popular for DNS lookups, live voice and video, and online games, where a late packet is as useless as a lost one.",
        "Applications that need both low latency and reliability sometimes build their own mechanisms on top of UDP. The QUIC protocol, which carries HTTP/3, runs over UDP but provides encryption, reliable delivery and congestion control itself, and it can set up a secure connection in fewer round trips than TCP combined with TLS.",
    ]),
    ("d07", "The Great Barrier Reef", [
        "The Great Barrier Reef, off the coast of Queensland in north-eastern Australia, is the world's largest coral reef system. It stretches for more than 2,300 kilometres and is made up of almost 3,000 individual reefs and about 900 islands. It is often described as the largest structure built by living organisms, and it can be seen from space.",
        "Corals are colonies of tiny animals called polyps, which build skeletons of calcium carbonate. Reef-building corals live in partnership with microscopic algae called zooxanthellae that live inside their tissues. The algae photosynthesise and supply the coral with most of its food, and they also give the coral much of its colour.",
        "The reef supports extraordinary biodiversity, including more than 1,600 species of fish, over 400 species of hard coral, six of the world's seven species of marine turtle, and dugongs. It was inscribed as a UNESCO World Heritage Site in 1981, and most of it is protected within the Great Barrier Reef Marine Park, established in 1975.",
        "When the water becomes too warm, corals expel their zooxanthellae and turn white, a process called coral bleaching. Bleached corals are not dead, but they starve and may die if high temperatures persist. Marine heatwaves caused mass bleaching on the reef in 1998, 2002, 2016, 2017, 2020, 2022 and 2024, and the reef is also threatened by cyclones, crown-of-thorns starfish outbreaks and poor water quality.",
    ]),
    ("d08", "Inflation and interest rates", [
        "Inflation is the rate at which the general level of prices for goods and services rises over time, reducing the purchasing power of money. It is commonly measured with a consumer price index (CPI), which tracks the cost of a fixed basket of goods and services that a typical household buys. If the index rises by 3 percent over a year, annual inflation is 3 percent.",
        "Many central banks, including the US Federal Reserve, the European Central Bank and the Bank of England, aim to keep inflation at around 2 percent over the medium term. Low, stable inflation is thought to support economic growth, whereas high inflation erodes savings, and deflation, a sustained fall in prices, can lead households and firms to postpone spending.",
        "The main tool central banks use is a short-term policy interest rate. When inflation is too high, the central bank raises the rate, which makes borrowing more expensive and saving more attractive. Households and businesses spend and invest less, demand cools, and price rises slow down. When inflation is too low or the economy is weak, the bank cuts the rate to encourage borrowing and spending.",
        "Monetary policy works with long and variable lags: a change in interest rates may take a year or two to have its full effect on inflation. The real interest rate is the nominal rate minus inflation, so a loan at 5 percent when inflation is 3 percent has a real rate of about 2 percent. In the early 1980s, the Federal Reserve under Paul Volcker raised its policy rate to around 20 percent to bring down double-digit inflation.",
    ]),
    ("d09", "The Apollo 11 mission", [
        "Apollo 11 was the NASA mission that first landed humans on the Moon. It launched on 16 July 1969 from Kennedy Space Center in Florida on a Saturn V rocket, carrying three astronauts: commander Neil Armstrong, lunar module pilot Edwin \"Buzz\" Aldrin and command module pilot Michael Collins.",
        "On 20 July 1969, Armstrong and Aldrin landed the lunar module Eagle in the Sea of Tranquility, while Collins remained in lunar orbit aboard the command module Columbia. About six and a half hours after landing, Armstrong became the first person to step onto the lunar surface, saying, \"That's one small step for man, one giant leap for mankind.\" Aldrin joined him about 20 minutes later.",
        "The two astronauts spent about two and a half hours walking on the surface. They planted a United States flag, set up scientific experiments including a seismometer and a laser-ranging retroreflector, and collected about 21.5 kilograms of lunar rock and soil to bring back to Earth.",
        "After about 21 and a half hours on the Moon, Eagle's ascent stage lifted off and docked with Columbia. The crew returned to Earth and splashed down in the Pacific Ocean on 24 July 1969, where they were recovered by the aircraft carrier USS Hornet. The mission fulfilled President John F. Kennedy's 1961 goal of landing a man on the Moon and returning him safely to Earth before the end of the decade.",
    ]),
    ("d10", "How lithium-ion batteries work", [
        "A lithium-ion battery is a rechargeable battery in which lithium ions move between two electrodes. The negative electrode, or anode, is usually made of graphite, and the positive electrode, or cathode, is a lithium compound such as lithium cobalt oxide or lithium iron phosphate. The electrodes are kept apart by a porous separator soaked in an electrolyte, typically a lithium salt dissolved in organic solvents.",
        "During discharge, lithium ions travel from the anode through the electrolyte to the cathode, while electrons flow through the external circuit and power the device. Charging reverses the process: an external power source pushes the ions back into the graphite, where they are stored between its layers, a process called intercalation.",
        "Lithium-ion cells have a high energy density and a nominal voltage of about 3.6 to 3.7 volts per cell, much higher than the 1.2 volts of a nickel-metal hydride cell. They have no memory effect and a low self-discharge rate, which is why they power phones, laptops and electric vehicles. Their capacity slowly fades with each charge cycle and with age.",
        "If a cell is damaged, overcharged or overheated, it can enter thermal runaway, in which rising temperature triggers reactions that release still more heat, sometimes leading to fire. Battery management systems monitor voltage and temperature to prevent this. The 2019 Nobel Prize in Chemistry was awarded to John Goodenough, M. Stanley Whittingham and Akira Yoshino for developing lithium-ion batteries; Sony sold the first commercial one in 1991.",
    ]),
    ("d11", "The French Revolution", [
        "The French Revolution was a period of political and social upheaval in France that began in 1789. Its causes included a severe financial crisis, made worse by the cost of wars such as French support for the American Revolution, poor harvests and high bread prices, and resentment of the privileges of the nobility and clergy under the old regime.",
        "In May 1789, King Louis XVI summoned the Estates-General for the first time since 1614. In June, the deputies of the Third Estate declared themselves the National Assembly and swore the Tennis Court Oath not to separate until France had a constitution. On 14 July 1789, crowds in Paris stormed the Bastille, a royal fortress and prison, an event still commemorated as France's national holiday.",
        "In August 1789, the National Constituent Assembly abolished feudal privileges and adopted the Declaration of the Rights of Man and of the Citizen, which proclaimed liberty, equality before the law and popular sovereignty. France became a republic in September 1792, and Louis XVI was tried and executed by guillotine in January 1793.",
        "From 1793 to 1794, during the Reign of Terror, the Committee of Public Safety, in which Maximilien Robespierre was a leading figure, had thousands of people executed as enemies of the Revolution; around 17,000 were officially executed. Robespierre himself was guillotined in July 1794. The Revolution is generally considered to have ended in 1799, when Napoleon Bonaparte seized power in the coup of 18 Brumaire.",
    ]),
    ("d12", "Plate tectonics", [
        "Plate tectonics is the scientific theory that Earth's outer shell, the lithosphere, is broken into large rigid plates that move slowly over the hotter, more ductile asthenosphere beneath. There are seven or eight major plates and many smaller ones. They move at rates of a few centimetres per year, roughly as fast as fingernails grow.",
        "The theory grew out of Alfred Wegener's idea of continental drift, proposed in 1912. Wegener pointed to the matching coastlines of South America and Africa and to similar fossils and rocks on different continents, suggesting that they were once joined in a supercontinent he called Pangaea. His idea was widely rejected because he could not explain what force moved the continents.",
        "In the 1950s and 1960s, mapping of the ocean floor revealed mid-ocean ridges and symmetrical stripes of magnetised rock on either side of them. These supported seafloor spreading, in which new oceanic crust forms at the ridges and moves outward. By the late 1960s these findings had been combined into the theory of plate tectonics, which is now accepted by geologists.",
        "Plate boundaries are of three main types. At divergent boundaries, such as the Mid-Atlantic Ridge, plates move apart. At convergent boundaries, plates move towards each other: one may sink beneath the other in subduction, forming deep trenches and volcanoes, or continents may collide and build mountains such as the Himalayas. At transform boundaries, such as California's San Andreas Fault, plates slide past each other, causing earthquakes.",
    ]),
]

PASSAGES = {}  # id -> text
DOC_OF = {}    # passage id -> doc id
TITLE = {}     # doc id -> title
for _doc_id, _title, _texts in DOCS:
    TITLE[_doc_id] = _title
    for _i, _t in enumerate(_texts, 1):
        PASSAGES[f"{_doc_id}#{_i}"] = _t
        DOC_OF[f"{_doc_id}#{_i}"] = _doc_id

# ---------------------------------------------------------------------------------------------
# Questions and the four systems' answers
#
# doc: the topic document. rel: passages needed for the gold answer, with their UMBRELA grade
# (0 unrelated, 1 related but does not answer, 2 partially answers, 3 fully answers). extra:
# other passages with a grade other than the default; the default grade is 1 for passages of the
# topic document and 0 for everything else. Answers cite passages as {dNN#k}; the generator turns
# those into [n] for the record's own context list. Answers of "wrong" cite [n] directly (their
# top-ranked passages are off-topic, so the citations do not support the claims).
# Each answer carries a quality class: full, mostly, partial, insufficient, wrong.
# ---------------------------------------------------------------------------------------------

ABSTAIN_PHRASES = [
    "I don't have enough information to answer that.",
    "I'm sorry, but the retrieved documents don't contain enough information to answer this question.",
    "I can't answer that reliably from the information I was given.",
    "There isn't enough information in the provided context to answer that.",
]
ABSTAIN = "<abstain>"  # replaced by one of ABSTAIN_PHRASES, rotating

Q = []


def q(qid, doc, qtype, query, reference, rel, extra, oracle, partial, abstain, wrong):
    Q.append(dict(id=qid, doc=doc, qtype=qtype, query=query, reference=reference, rel=rel,
                  extra=extra, answers=dict(oracle=oracle, partial=partial, abstain=abstain,
                                            wrong=wrong)))


q("q01", "d01", "factoid",
  "What process releases water vapour from the leaves of plants?",
  "Transpiration: plants release water vapour through small pores in their leaves. Together with evaporation it is often called evapotranspiration.",
  {"d01#2": 3}, {"d02#2": 1},
  ("Plants release water vapour through small pores in their leaves in a process called transpiration {d01#2}. Together with evaporation from oceans and other surfaces, it is often called evapotranspiration {d01#2}.", "full"),
  ("Plants give off water vapour from their leaves as part of the water cycle {d01#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The process is called condensation: plants push water vapour out through their roots, and it supplies about 97 percent of the moisture in the atmosphere [1].", "wrong"))

q("q02", "d01", "definition",
  "What is infiltration in the water cycle?",
  "Infiltration is the process by which precipitation that reaches the ground soaks into the soil; infiltrated water can percolate deeper and recharge groundwater stored in aquifers.",
  {"d01#4": 3}, {},
  ("Infiltration is the process by which precipitation that reaches the ground soaks into the soil instead of flowing away as runoff {d01#4}. Infiltrated water can percolate deeper and recharge groundwater stored in aquifers, where it may stay for thousands of years {d01#4}.", "full"),
  ("Infiltration is when rainwater soaks into the ground {d01#4}.", "mostly"),
  (ABSTAIN, "insufficient"),
  ("Infiltration is the process in which water vapour cools to its dew point and forms clouds [1]; it takes place mainly in the upper atmosphere [2].", "wrong"))

q("q03", "d02", "factoid",
  "Where in the plant cell do the light-dependent reactions of photosynthesis take place?",
  "In the thylakoid membranes of the chloroplasts.",
  {"d02#3": 3}, {"d02#2": 2, "d07#2": 1},
  ("The light-dependent reactions take place in the thylakoid membranes {d02#3} of the chloroplasts, the organelles in which photosynthesis happens in plant cells {d02#2}.", "full"),
  ("They take place in the chloroplasts of leaf cells {d02#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The light-dependent reactions take place in the mitochondria, in a fluid called the stroma [1], where the enzyme RuBisCO splits water [2].", "wrong"))

q("q04", "d02", "multi-hop",
  "Which enzyme fixes carbon dioxide during photosynthesis, and through which structures does that carbon dioxide enter the leaf?",
  "The enzyme RuBisCO fixes carbon dioxide in the Calvin cycle, in the stroma of the chloroplast. The carbon dioxide enters the leaf through small pores called stomata.",
  {"d02#4": 2, "d02#2": 2}, {"d07#2": 1},
  ("Carbon dioxide is fixed by the enzyme RuBisCO during the Calvin cycle, which takes place in the stroma of the chloroplast {d02#4}. The carbon dioxide reaches the leaf through small pores called stomata {d02#2}.", "full"),
  ("The enzyme RuBisCO fixes carbon dioxide in the Calvin cycle {d02#4}. The documents do not say how the carbon dioxide gets into the leaf.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Carbon dioxide is fixed by chlorophyll in the thylakoid membranes [1], and it enters the plant through the roots together with water [2].", "wrong"))

q("q05", "d03", "definition",
  "What rule does the Rust borrow checker enforce about references?",
  "At any given time a value may have either any number of shared (immutable) references or exactly one mutable reference, but not both; this prevents data races at compile time.",
  {"d03#2": 3}, {"d03#3": 2},
  ("The borrow checker enforces that, at any given time, you may have either any number of shared (immutable) references (&T) or exactly one mutable reference (&mut T), but not both {d03#2}. This prevents data races at compile time {d03#2}. It also makes sure that references never outlive the data they point to {d03#3}.", "full"),
  ("It restricts how references can be used so that programs stay memory safe {d03#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The borrow checker allows any number of mutable references as long as there is only one immutable reference [1], and it enforces this at run time with a garbage collector [2].", "wrong"))

q("q06", "d03", "factoid",
  "What happens to a String in Rust when it is assigned to another variable?",
  "Ownership of the String moves to the new variable, and the original variable can no longer be used.",
  {"d03#1": 3}, {},
  ("Assigning a String to another variable moves ownership of it to the new variable, and the original variable can no longer be used {d03#1}.", "full"),
  ("The String is moved to the new variable {d03#1}.", "mostly"),
  ("Ownership moves to the new variable, so the original variable can no longer be used {d03#1}.", "full"),
  ("The String is copied, so both variables stay usable and share the same heap memory [1].", "wrong"))

q("q07", "d03", "definition",
  "What are non-lexical lifetimes in Rust?",
  "Non-lexical lifetimes (NLL), used since the 2018 edition, let the borrow checker end a borrow at the last point where the reference is used rather than at the end of its enclosing block, so more correct programs are accepted.",
  {"d03#4": 3}, {},
  ("Non-lexical lifetimes (NLL), used since the 2018 edition, let the borrow checker end a borrow at the last point where the reference is used, rather than at the end of its enclosing block {d03#4}. This lets the compiler accept many correct programs that the older, purely lexical checker rejected, at no runtime cost {d03#4}.", "full"),
  ("Non-lexical lifetimes are a feature of the borrow checker that has to do with how long references are valid {d03#3}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Non-lexical lifetimes were introduced with Rust 1.0 in 2015 [1]; they make every borrow last until the end of the program and add a small runtime check [2].", "wrong"))

q("q08", "d04", "factoid",
  "When and where was the Gutenberg Bible completed?",
  "It was printed in Mainz, Germany, and completed around 1455.",
  {"d04#2": 3}, {},
  ("The Gutenberg Bible was printed in Mainz, Germany, and completed around 1455 {d04#2}.", "full"),
  ("It was completed in the mid-1450s {d04#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The Gutenberg Bible was completed in Strasbourg in 1482 [1].", "wrong"))

q("q09", "d04", "comparison",
  "How did Gutenberg's movable type differ from the earlier movable type of China and Korea?",
  "Movable type already existed: Bi Sheng made baked clay type in China in the 1040s, and Korea's Jikji was printed with metal type in 1377. Gutenberg's system stood out for its efficiency with alphabetic scripts and for combining type cast in a hand mould with an oil-based ink and a screw press.",
  {"d04#3": 3, "d04#1": 2}, {},
  ("Movable type existed before Gutenberg: Bi Sheng made movable type from baked clay in China in the 1040s, and Korea's Jikji was printed with movable metal type in 1377 {d04#3}. Gutenberg's system differed in being efficient for alphabetic scripts and in combining type cast in a hand mould from a lead-based alloy with an oil-based ink and a screw press {d04#3}{d04#1}.", "full"),
  ("Earlier movable type existed in China and Korea {d04#3}, but Gutenberg's version was more efficient.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Gutenberg invented movable type; China and Korea only printed from carved wooden blocks and had no movable type until the 1600s [1].", "wrong"))

q("q10", "d04", "unanswerable",
  "How much did a copy of the Gutenberg Bible cost when it was first sold?",
  "The corpus does not contain this information: it describes when and where the Gutenberg Bible was printed and how many copies were made, but not its original price.",
  {}, {"d04#2": 1},
  ("The corpus does not contain this information. It says that the Gutenberg Bible was completed around 1455 and that about 180 copies were printed {d04#2}, but it does not say what a copy cost when it was first sold.", "full"),
  ("I could not find the original price in the documents.", "full"),
  (ABSTAIN, "full"),
  ("A paper copy of the Gutenberg Bible first sold for about 2,000 gold florins, and copies on vellum cost twice as much [1].", "wrong"))

q("q11", "d05", "factoid",
  "Who developed the first vaccine, and against which disease?",
  "The English physician Edward Jenner developed the first vaccine in 1796, using material from cowpox sores to protect against smallpox.",
  {"d05#2": 3}, {},
  ("The first vaccine was developed by the English physician Edward Jenner in 1796 {d05#2}. He used material from cowpox sores to protect against smallpox {d05#2}.", "full"),
  ("Edward Jenner developed the first vaccine {d05#2}.", "partial"),
  ("Edward Jenner, in 1796, against smallpox {d05#2}.", "full"),
  ("The first vaccine was developed by Louis Pasteur in 1885, against rabies [1].", "wrong"))

q("q12", "d05", "multi-hop",
  "What share of a population must be immune to stop measles from spreading, and which people does herd immunity protect indirectly?",
  "Because measles has an R0 of about 12 to 18, roughly 92 to 94 percent of people must be immune (agencies aim for about 95 percent vaccination coverage). Herd immunity indirectly protects people who cannot be vaccinated, such as newborn babies and people with weakened immune systems.",
  {"d05#4": 2, "d05#3": 2}, {},
  ("Measles is extremely contagious, with an R0 often put between 12 and 18, so roughly 92 to 94 percent of people must be immune, and public health agencies aim for about 95 percent vaccination coverage {d05#4}. Herd immunity indirectly protects people who cannot be vaccinated, such as newborn babies and people with weakened immune systems {d05#3}.", "full"),
  ("A very high share of the population, over 90 percent, must be immune to stop measles from spreading {d05#4}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Only about 50 percent of people need to be immune to stop measles [1], and herd immunity mainly protects people who have already been vaccinated [2].", "wrong"))

q("q13", "d05", "definition",
  "What is the basic reproduction number R0?",
  "R0 is the average number of people that one infected person would infect in a fully susceptible population.",
  {"d05#4": 3}, {},
  ("R0, the basic reproduction number, is the average number of people that one infected person would infect in a population where everyone is susceptible {d05#4}. It is used to estimate the herd immunity threshold as 1 - 1/R0 {d05#4}.", "full"),
  ("R0 is a measure of how contagious a disease is {d05#3}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("R0 is the percentage of a population that has been vaccinated [1]; an R0 above 1 means that the disease has been eradicated [2].", "wrong"))

q("q14", "d06", "comparison",
  "What are the main differences between TCP and UDP?",
  "TCP is connection-oriented and reliable: it sets up a connection with a three-way handshake, acknowledges and retransmits data, delivers it in order, and adds flow and congestion control. UDP is connectionless, with no handshake, acknowledgements or guarantee of order or delivery, and a smaller 8-byte header, so it has lower overhead.",
  {"d06#2": 2, "d06#4": 2, "d06#3": 2}, {"d06#1": 1, "d06#5": 1},
  ("TCP is connection-oriented: it opens a connection with a three-way handshake, numbers and acknowledges data, retransmits lost segments and delivers a reliable, ordered byte stream {d06#2}, with flow control and congestion control on top {d06#3}. UDP is connectionless: it sends individual datagrams with no handshake, acknowledgements or retransmission and no guarantee of order or delivery, and its header is only 8 bytes against at least 20 bytes for TCP {d06#4}.", "full"),
  ("TCP is more reliable and UDP is faster {d06#1}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("UDP is the reliable protocol: it uses a three-way handshake and retransmits lost packets [1], while TCP is connectionless and has an 8-byte header [2].", "wrong"))

q("q15", "d06", "factoid",
  "What are the three steps of the TCP three-way handshake?",
  "The client sends a SYN segment, the server replies with a SYN-ACK, and the client answers with an ACK.",
  {"d06#2": 3}, {},
  ("The client sends a SYN segment, the server replies with a SYN-ACK, and the client answers with an ACK {d06#2}.", "full"),
  ("It uses SYN and ACK segments {d06#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The handshake consists of HELLO, ACCEPT and CONFIRM messages, and the server always sends the first one [1].", "wrong"))

q("q16", "d06", "multi-hop",
  "Which transport protocol does HTTP/3 ultimately run over, and how large is that protocol's header?",
  "HTTP/3 is carried by QUIC, which runs over UDP; the UDP header is only 8 bytes long.",
  {"d06#5": 2, "d06#4": 2}, {},
  ("HTTP/3 is carried by QUIC, which runs over UDP {d06#5}. The UDP header is only 8 bytes long {d06#4}.", "full"),
  ("HTTP/3 runs over QUIC, which uses UDP {d06#5}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("HTTP/3 runs directly over TCP [1], whose header is 8 bytes long [2].", "wrong"))

q("q17", "d07", "factoid",
  "How long is the Great Barrier Reef, and how many individual reefs does it contain?",
  "It stretches for more than 2,300 kilometres and is made up of almost 3,000 individual reefs.",
  {"d07#1": 3}, {},
  ("The Great Barrier Reef stretches for more than 2,300 kilometres and is made up of almost 3,000 individual reefs, along with about 900 islands {d07#1}.", "full"),
  ("It is more than 2,000 kilometres long {d07#1}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The reef is about 800 kilometres long and contains roughly 150 individual reefs [1].", "wrong"))

q("q18", "d07", "multi-hop",
  "The algae living inside reef-building corals make food by photosynthesis. Which gas do they release as a by-product, and what happens to these algae during coral bleaching?",
  "Photosynthesis releases oxygen as a by-product. During coral bleaching, caused by water that is too warm, the corals expel the algae (zooxanthellae) and turn white.",
  {"d07#4": 2, "d02#1": 2}, {"d07#2": 1},
  ("The algae, called zooxanthellae {d07#2}, release oxygen as a by-product of photosynthesis {d02#1}. During coral bleaching, which happens when the water becomes too warm, the corals expel these algae and turn white {d07#4}.", "full"),
  ("When the water gets too warm, corals expel their algae and turn white {d07#4}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The algae release carbon dioxide [1], and during bleaching they multiply rapidly and turn the coral bright red [2].", "wrong"))

q("q19", "d07", "factoid",
  "In which year was the Great Barrier Reef inscribed as a UNESCO World Heritage Site?",
  "In 1981.",
  {"d07#3": 3}, {},
  ("It was inscribed as a UNESCO World Heritage Site in 1981 {d07#3}.", "full"),
  ("In the early 1980s {d07#3}.", "partial"),
  ("In 1981 {d07#3}.", "full"),
  ("It was listed as a World Heritage Site in 1975, the same year it was first charted by European explorers [1].", "wrong"))

q("q20", "d08", "definition",
  "What is inflation, and how is it commonly measured?",
  "Inflation is the rate at which the general level of prices rises over time, reducing the purchasing power of money. It is commonly measured with a consumer price index, which tracks the cost of a fixed basket of goods and services.",
  {"d08#1": 3}, {},
  ("Inflation is the rate at which the general level of prices for goods and services rises over time, reducing the purchasing power of money {d08#1}. It is commonly measured with a consumer price index (CPI), which tracks the cost of a fixed basket of goods and services bought by a typical household {d08#1}.", "full"),
  ("Inflation means that prices go up over time {d08#1}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Inflation is the rate at which the value of money rises as prices fall [1], and it is measured by the central bank's policy interest rate [2].", "wrong"))

q("q21", "d08", "factoid",
  "Why do central banks raise interest rates when inflation is too high?",
  "Higher policy rates make borrowing more expensive and saving more attractive, so households and businesses spend and invest less; demand cools and price rises slow down.",
  {"d08#3": 3}, {},
  ("Raising the policy interest rate makes borrowing more expensive and saving more attractive, so households and businesses spend and invest less {d08#3}. Demand cools and price rises slow down {d08#3}, although the full effect can take a year or two {d08#4}.", "full"),
  ("Higher interest rates make borrowing more expensive {d08#3}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Central banks raise rates to increase the money supply, which encourages spending and pushes prices down [1].", "wrong"))

q("q22", "d08", "multi-hop",
  "If a loan charges 5 percent interest and inflation is at the level most central banks target, what is the approximate real interest rate?",
  "Many central banks target inflation of about 2 percent, and the real interest rate is the nominal rate minus inflation, so the real rate is about 3 percent.",
  {"d08#2": 2, "d08#4": 2}, {},
  ("Many central banks aim for inflation of around 2 percent {d08#2}. The real interest rate is the nominal rate minus inflation {d08#4}, so a 5 percent loan would have a real rate of about 3 percent.", "full"),
  ("The real interest rate is the nominal rate minus inflation {d08#4}, so it would be somewhat below 5 percent.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The real rate would be about 7 percent, because inflation is added to the nominal rate [1].", "wrong"))

q("q23", "d09", "factoid",
  "Who were the three astronauts of Apollo 11, and what were their roles?",
  "Neil Armstrong was the commander, Buzz Aldrin the lunar module pilot and Michael Collins the command module pilot.",
  {"d09#1": 3}, {"d09#2": 2},
  ("The crew was commander Neil Armstrong, lunar module pilot Buzz Aldrin and command module pilot Michael Collins {d09#1}.", "full"),
  ("The crew included Neil Armstrong and Buzz Aldrin, who walked on the Moon {d09#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The crew was Neil Armstrong, John Glenn and Alan Shepard, with Glenn as commander [1].", "wrong"))

q("q24", "d09", "factoid",
  "How much lunar rock and soil did the Apollo 11 astronauts bring back?",
  "About 21.5 kilograms of lunar rock and soil.",
  {"d09#3": 3}, {},
  ("The astronauts collected about 21.5 kilograms of lunar rock and soil to bring back to Earth {d09#3}.", "full"),
  ("They brought back samples of lunar rock and soil {d09#3}.", "partial"),
  ("About 21.5 kilograms {d09#3}.", "full"),
  ("Apollo 11 brought back about 380 kilograms of lunar samples [1].", "wrong"))

q("q25", "d09", "unanswerable",
  "Who was the flight director in Mission Control during the Apollo 11 landing?",
  "The corpus does not contain this information: it describes the crew and the landing but does not name the flight director.",
  {}, {},
  ("The corpus does not contain this information. It describes the crew and the landing of the lunar module Eagle {d09#2}, but it does not name the flight director.", "full"),
  ("The documents don't name a flight director; they only mention the three astronauts {d09#1}.", "full"),
  (ABSTAIN, "full"),
  ("The flight director during the landing was Wernher von Braun, who guided Eagle down from Houston [1].", "wrong"))

q("q26", "d10", "comparison",
  "How does the nominal voltage of a lithium-ion cell compare with that of a nickel-metal hydride cell?",
  "A lithium-ion cell has a nominal voltage of about 3.6 to 3.7 volts, roughly three times the 1.2 volts of a nickel-metal hydride cell.",
  {"d10#3": 3}, {},
  ("A lithium-ion cell has a nominal voltage of about 3.6 to 3.7 volts, roughly three times the 1.2 volts of a nickel-metal hydride cell {d10#3}.", "full"),
  ("Lithium-ion cells have a higher voltage than nickel-metal hydride cells {d10#3}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("A lithium-ion cell is rated at 1.5 volts, slightly lower than the 1.8 volts of a nickel-metal hydride cell [1].", "wrong"))

q("q27", "d10", "definition",
  "What is thermal runaway in a lithium-ion battery?",
  "Thermal runaway is a state in which rising temperature triggers reactions that release still more heat, which can lead to fire; it can happen when a cell is damaged, overcharged or overheated.",
  {"d10#4": 3}, {},
  ("Thermal runaway can happen when a cell is damaged, overcharged or overheated: rising temperature triggers reactions that release still more heat, which can lead to fire {d10#4}. Battery management systems monitor voltage and temperature to prevent it {d10#4}.", "full"),
  ("Thermal runaway is when a battery overheats and can catch fire {d10#4}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Thermal runaway is the normal, slow loss of capacity over many charge cycles [1]; it is harmless and is caused by the memory effect [2].", "wrong"))

q("q28", "d11", "factoid",
  "What happened in Paris on 14 July 1789?",
  "Crowds in Paris stormed the Bastille, a royal fortress and prison.",
  {"d11#2": 3}, {},
  ("On 14 July 1789, crowds in Paris stormed the Bastille, a royal fortress and prison {d11#2}. The event is still commemorated as France's national holiday {d11#2}.", "full"),
  ("There was a major uprising in Paris {d11#2}.", "partial"),
  ("Crowds in Paris stormed the Bastille, a royal fortress and prison {d11#2}.", "full"),
  ("On 14 July 1789, King Louis XVI was executed by guillotine in front of the Bastille [1].", "wrong"))

q("q29", "d11", "factoid",
  "When is the French Revolution generally considered to have ended, and what event marked its end?",
  "It is generally considered to have ended in 1799, when Napoleon Bonaparte seized power in the coup of 18 Brumaire.",
  {"d11#4": 3}, {},
  ("The Revolution is generally considered to have ended in 1799, when Napoleon Bonaparte seized power in the coup of 18 Brumaire {d11#4}.", "full"),
  ("It ended in the late 1790s, when Napoleon came to power {d11#4}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("The Revolution ended in 1815 with the Battle of Waterloo, after which Robespierre returned to power [1].", "wrong"))

q("q30", "d12", "factoid",
  "What evidence did Alfred Wegener use to support continental drift?",
  "He pointed to the matching coastlines of South America and Africa and to similar fossils and rocks on different continents, suggesting they were once joined in a supercontinent, Pangaea.",
  {"d12#2": 3}, {},
  ("Wegener, who proposed continental drift in 1912, pointed to the matching coastlines of South America and Africa and to similar fossils and rocks on different continents {d12#2}. He suggested that the continents had once been joined in a supercontinent he called Pangaea {d12#2}.", "full"),
  ("He noticed that the coastlines of South America and Africa fit together {d12#2}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("Wegener relied on the magnetic stripes of the seafloor and on satellite measurements of plate motion [1], which he published in 1962 [2].", "wrong"))

q("q31", "d12", "comparison",
  "How do divergent, convergent and transform plate boundaries differ?",
  "At divergent boundaries plates move apart; at convergent boundaries they move towards each other, with subduction or continental collision; at transform boundaries they slide past each other, causing earthquakes.",
  {"d12#4": 3}, {},
  ("At divergent boundaries, such as the Mid-Atlantic Ridge, plates move apart {d12#4}. At convergent boundaries plates move towards each other: one may sink beneath the other in subduction, forming trenches and volcanoes, or continents may collide and build mountains such as the Himalayas {d12#4}. At transform boundaries, such as the San Andreas Fault, plates slide past each other, causing earthquakes {d12#4}.", "full"),
  ("Plates move apart at divergent boundaries and towards each other at convergent boundaries {d12#4}.", "partial"),
  (ABSTAIN, "insufficient"),
  ("At divergent boundaries plates collide and build mountains such as the Himalayas [1]; at transform boundaries new crust forms, as along the Mid-Atlantic Ridge [2].", "wrong"))

# One earlier turn pair for a few records of each system (for conversational metrics).
HISTORY = {
    "q06": [("user", "What is ownership in Rust?"),
            ("assistant", "In Rust every value has a single owner, and the value is dropped when its owner goes out of scope.")],
    "q13": [("user", "What is herd immunity?"),
            ("assistant", "Herd immunity is when enough people are immune to a disease that it can no longer spread easily, which also protects people who cannot be vaccinated.")],
    "q24": [("user", "When did Apollo 11 land on the Moon?"),
            ("assistant", "The lunar module Eagle landed in the Sea of Tranquility on 20 July 1969.")],
    "q29": [("user", "When did the French Revolution begin?"),
            ("assistant", "It began in 1789, during a financial crisis and a time of high bread prices.")],
}
HISTORY_FOR = {
    "oracle": ["q06", "q13", "q24"],
    "partial": ["q06", "q24", "q29"],
    "abstain": ["q13", "q24", "q29"],
    "wrong": ["q06", "q13", "q29"],
}

SYSTEMS = ["oracle", "partial", "abstain", "wrong"]

# ---------------------------------------------------------------------------------------------
# Chinese records
# ---------------------------------------------------------------------------------------------

ZH_PASSAGES = {
    "zh-d02#2": "在植物中，光合作用发生在叶绿体中，叶绿体主要存在于叶片细胞内。叶绿体含有叶绿素，这种绿色色素强烈吸收红光和蓝光而反射绿光，因此叶片呈绿色。",
    "zh-d02#3": "光反应发生在叶绿体的类囊体膜上。在那里，吸收的光能被用来分解水分子并释放出氧气，能量则储存在ATP和NADPH这两种载体分子中。",
    "zh-d02#4": "不依赖光的反应又称卡尔文循环，发生在类囊体周围的基质中。RuBisCO酶把二氧化碳固定到一种五碳糖上，并利用ATP和NADPH中储存的能量合成三碳糖。",
    "zh-d06#1": "TCP（传输控制协议）和UDP（用户数据报协议）是互联网协议族中两种主要的传输层协议。它们都运行在IP之上，并使用端口号把数据交给主机上正确的应用程序。",
    "zh-d06#2": "TCP是面向连接的协议。发送数据之前，双方要进行三次握手：客户端发送SYN，服务器回复SYN-ACK，客户端再回复ACK。此后TCP为每个字节编号，确认收到的数据，重传丢失的报文段，并按顺序把数据交付给应用程序。",
    "zh-d06#4": "UDP是无连接的协议：它直接发送独立的数据报，没有握手、确认或重传，也不保证顺序和送达。UDP首部只有8字节，而TCP首部至少有20字节。开销小、没有重传延迟，使UDP常用于DNS查询、实时语音视频和网络游戏。",
    "zh-d08#1": "通货膨胀是指商品和服务的总体价格水平随时间上涨的速度，它会降低货币的购买力。通货膨胀通常用消费者价格指数（CPI）来衡量，该指数跟踪一个典型家庭所购买的一篮子固定商品和服务的成本。",
    "zh-d09#1": "阿波罗11号是美国国家航空航天局首次将人类送上月球的任务。它于1969年7月16日由土星五号火箭从佛罗里达州的肯尼迪航天中心发射升空，机上有三名宇航员：指令长尼尔·阿姆斯特朗、登月舱驾驶员巴兹·奥尔德林和指令舱驾驶员迈克尔·柯林斯。",
    "zh-d09#2": "1969年7月20日，阿姆斯特朗和奥尔德林驾驶登月舱“鹰”号在静海着陆，柯林斯则留在环月轨道上的指令舱“哥伦比亚”号中。阿姆斯特朗成为第一个踏上月球表面的人。",
    "zh-d09#3": "两名宇航员在月面上行走了约两个半小时。他们插上了一面美国国旗，布设了月震仪和激光测距反射器等科学仪器，并采集了约21.5千克的月球岩石和土壤带回地球。",
    "zh-d10#1": "锂离子电池是一种可充电电池，锂离子在两个电极之间移动。负极通常由石墨制成，正极则是钴酸锂或磷酸铁锂等含锂化合物。",
    "zh-d12#1": "板块构造理论认为，地球的外壳岩石圈分裂成若干巨大的刚性板块，它们在下方较热、较具塑性的软流圈上缓慢移动，速度约为每年几厘米。",
}

ZH = [
    dict(id="zq01", topic="阿波罗11号", qtype="factoid",
         query="阿波罗11号是哪一天发射的？机组成员有哪些？",
         reference="阿波罗11号于1969年7月16日发射。机组成员是指令长尼尔·阿姆斯特朗、登月舱驾驶员巴兹·奥尔德林和指令舱驾驶员迈克尔·柯林斯。",
         oracle=([("zh-d09#1", 3), ("zh-d09#2", 1), ("zh-d09#3", 1)],
                 "阿波罗11号于1969年7月16日从肯尼迪航天中心发射[1]；机组成员是指令长尼尔·阿姆斯特朗、登月舱驾驶员巴兹·奥尔德林和指令舱驾驶员迈克尔·柯林斯[1]。7月20日，阿姆斯特朗和奥尔德林驾驶登月舱“鹰”号在静海着陆[2]。"),
         wrong=([("zh-d08#1", 0), ("zh-d12#1", 0), ("zh-d09#3", 1)],
                "阿波罗11号于1968年12月21日发射[1]；机组成员是约翰·格伦、艾伦·谢泼德和尼尔·阿姆斯特朗[2]。这一点毫无疑问！")),
    dict(id="zq02", topic="光合作用", qtype="factoid",
         query="光合作用的光反应在叶绿体的哪个部位进行？",
         reference="光反应在叶绿体的类囊体膜上进行。",
         oracle=([("zh-d02#3", 3), ("zh-d02#2", 2), ("zh-d02#4", 1)],
                 "光反应在叶绿体的类囊体膜上进行[1]。在这一过程中，光能把水分子分解并释放出氧气[1]；而卡尔文循环则在基质中进行[3]。"),
         wrong=([("zh-d10#1", 0), ("zh-d08#1", 0), ("zh-d02#4", 1)],
                "光反应在线粒体的基质中进行[1]，而且必须在完全黑暗的条件下才能发生！")),
    dict(id="zq03", topic="TCP与UDP", qtype="comparison",
         query="TCP和UDP的主要区别是什么？",
         reference="TCP是面向连接的可靠协议，通过三次握手建立连接，并提供确认、重传和按序交付；UDP是无连接的，不保证送达和顺序，首部只有8字节，开销更小。",
         oracle=([("zh-d06#2", 2), ("zh-d06#4", 2), ("zh-d06#1", 1)],
                 "TCP是面向连接的：它先通过三次握手建立连接，再对数据进行确认和重传，并按顺序交付[1]。UDP则是无连接的，没有握手和重传，也不保证顺序和送达[2]；它的首部只有8字节，比TCP至少20字节的首部小得多[2]。那么该如何选择？需要可靠传输时用TCP，追求低延迟时常用UDP[2]。"),
         wrong=([("zh-d12#1", 0), ("zh-d09#3", 0), ("zh-d06#1", 1)],
                "UDP才是可靠的协议，它使用三次握手并会重传丢失的数据包[1]；TCP是无连接的，首部只有8字节[2]。")),
]

# ---------------------------------------------------------------------------------------------
# Open RAG Eval CSV: 4 questions x 2 runs x 3 passages (the oracle's top three passages)
# ---------------------------------------------------------------------------------------------

OPENRAG = {
    "q08": ["The Gutenberg Bible was completed around 1455 in Mainz, Germany [1].",
            "It was printed in Mainz and completed in about 1455 [1]; roughly 180 copies were made [1]."],
    "q15": ["The client sends a SYN segment, the server replies with a SYN-ACK, and the client answers with an ACK [1].",
            "First the client sends SYN, then the server responds with SYN-ACK, and finally the client sends ACK to complete the connection setup [1]."],
    "q23": ["The crew was commander Neil Armstrong, lunar module pilot Buzz Aldrin and command module pilot Michael Collins [1].",
            "Neil Armstrong was the commander and Buzz Aldrin the lunar module pilot [1]; Michael Collins, the command module pilot, stayed in lunar orbit aboard Columbia [2]."],
    "q26": ["A lithium-ion cell has a nominal voltage of about 3.6 to 3.7 volts, roughly three times the 1.2 volts of a nickel-metal hydride cell [1].",
            "About 3.7 volts per cell, much higher than a nickel-metal hydride cell [1]."],
}

# ---------------------------------------------------------------------------------------------
# Human labels
# ---------------------------------------------------------------------------------------------

PAIRWISE_QUESTIONS = ["q01", "q03", "q04", "q06", "q09", "q10", "q12", "q14", "q19", "q22",
                      "q25", "q28"]
PAIRS = [("oracle", "partial"), ("partial", "abstain"), ("abstain", "wrong"), ("oracle", "wrong"),
         ("oracle", "abstain"), ("partial", "wrong")]
# Rules: accuracy against the gold first, extra information is no bonus, both cover the gold ->
# tie; fully correct > partially correct > honest "insufficient information" > wrong.
CLASS_RANK = {"full": 3, "mostly": 2, "partial": 2, "insufficient": 1, "wrong": 0}
CLASS_RATING = {"full": 5, "mostly": 4, "partial": 3, "insufficient": 2, "wrong": 1}

# ---------------------------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------------------------

CITE = re.compile(r"\{(d\d\d#\d)\}")


def grade(qu, pid):
    g = dict(qu["extra"])
    g.update(qu["rel"])
    if pid in g:
        return g[pid]
    return 1 if DOC_OF[pid] == qu["doc"] else 0


def graded_ids(qu):
    return list(qu["rel"]) + [p for p in qu["extra"] if p not in qu["rel"]]


def off_topic_pool(qu):
    near = {qu["doc"]} | {DOC_OF[p] for p in graded_ids(qu)}
    return [p for p in PASSAGES if DOC_OF[p] not in near]


def same_doc_fillers(qu):
    return [p for p in PASSAGES if DOC_OF[p] == qu["doc"] and p not in qu["rel"]]


def retrieve(qu, system, cited):
    """The ranked passage ids a system retrieved for a question (fixed rule, seeded)."""
    rng = random.Random(f"{qu['id']}/{system}")
    off = rng.sample(off_topic_pool(qu), 3)
    fill = same_doc_fillers(qu)
    rng.shuffle(fill)
    top = sorted(qu["rel"], key=lambda p: -qu["rel"][p])
    if system == "oracle":
        ids = top + [p for p in graded_ids(qu) if p not in top and grade(qu, p) >= 1]
        ids += [p for p in fill if p not in ids]
        ids = ids[:max(3, min(5, len(top) + 2))]
    elif system == "partial":
        ids = [fill[0]] + top[:1] + ([fill[1]] if not top else []) + [off[0]]
    elif system == "abstain":
        ids = [off[0], fill[0]] + top[:1] + [off[1]]
    else:  # wrong: mostly unrelated passages
        ids = [off[0], off[1], fill[0], off[2]]
    for p in cited:  # a cited passage must have been retrieved
        if p not in ids:
            ids.insert(min(2, len(ids)), p)
    return ids


def build_records():
    runs = {s: [] for s in SYSTEMS}
    classes = {}
    abstain_i = 0
    for qu in Q:
        meta = {"topic": TITLE[qu["doc"]], "query_type": qu["qtype"]}
        for s in SYSTEMS:
            text, cls = qu["answers"][s]
            if text == ABSTAIN:
                text = ABSTAIN_PHRASES[abstain_i % len(ABSTAIN_PHRASES)]
                abstain_i += 1
            cited = list(dict.fromkeys(CITE.findall(text)))
            ids = retrieve(qu, s, cited)
            answer = CITE.sub(lambda m: f"[{ids.index(m.group(1)) + 1}]", text)
            rec = {
                "id": qu["id"], "system": s, "query": qu["query"],
                "contexts": [{"id": p, "text": PASSAGES[p], "relevance": grade(qu, p)} for p in ids],
                "answer": answer, "reference": qu["reference"],
            }
            if qu["id"] in HISTORY_FOR[s]:
                rec["history"] = [{"role": r, "text": t} for r, t in HISTORY[qu["id"]]]
            rec["meta"] = meta
            runs[s].append(rec)
            classes[(qu["id"], s)] = cls
    return runs, classes


def dump_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def write_all():
    dump_jsonl(HERE / "corpus/docs.jsonl", [
        {"doc_id": d, "title": t,
         "passages": [{"id": f"{d}#{i}", "text": x} for i, x in enumerate(texts, 1)]}
        for d, t, texts in DOCS])
    dump_jsonl(HERE / "questions.jsonl", [
        {"id": qu["id"], "query": qu["query"], "reference": qu["reference"],
         "meta": {"topic": TITLE[qu["doc"]], "query_type": qu["qtype"]},
         "relevant": sorted(qu["rel"], key=lambda p: -qu["rel"][p])}
        for qu in Q])

    runs, classes = build_records()
    for s in SYSTEMS:
        dump_jsonl(HERE / f"runs/{s}.jsonl", runs[s])

    zh_rows = []
    for z in ZH:
        for s in ("oracle", "wrong"):
            ctx, ans = z[s]
            zh_rows.append({
                "id": z["id"], "system": s, "query": z["query"],
                "contexts": [{"id": p, "text": ZH_PASSAGES[p], "relevance": g} for p, g in ctx],
                "answer": ans, "reference": z["reference"],
                "meta": {"topic": z["topic"], "query_type": z["qtype"]}})
    dump_jsonl(HERE / "zh/runs.jsonl", zh_rows)

    oracle = {r["id"]: r for r in runs["oracle"]}
    (HERE / "openrag").mkdir(parents=True, exist_ok=True)
    with open(HERE / "openrag/results_input.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        w.writerow(["query_id", "query", "query_run", "passage_id", "passage", "generated_answer"])
        for qid, answers in OPENRAG.items():
            rec = oracle[qid]
            for run, ans in enumerate(answers, 1):
                for c in rec["contexts"][:3]:
                    w.writerow([qid, rec["query"], run, c["id"], c["text"], ans])

    labels = []
    n = 0
    for qid in PAIRWISE_QUESTIONS:
        for a, b in PAIRS:
            if n % 2:  # alternate presentation order
                a, b = b, a
            n += 1
            ra, rb = CLASS_RANK[classes[(qid, a)]], CLASS_RANK[classes[(qid, b)]]
            labels.append({"id": qid, "system_a": a, "system_b": b,
                           "label": "A" if ra > rb else "B" if rb > ra else "tie"})
    dump_jsonl(HERE / "human/pairwise_labels.jsonl", labels)

    qtype = {qu["id"]: qu["qtype"] for qu in Q}
    with open(HERE / "human/ratings.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "system", "usefulness"])
        for s in SYSTEMS:
            for qu in Q:
                cls = classes[(qu["id"], s)]
                r = CLASS_RATING[cls]
                # an honest "not enough information" to an unanswerable question is correct, but
                # says less than an answer that explains what the corpus does cover
                if qtype[qu["id"]] == "unanswerable" and cls == "full" and not CITE.search(qu["answers"][s][0]):
                    r = 4
                w.writerow([qu["id"], s, r])


# ---------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------

def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{i}: {e}")
    return rows


def check():
    errors = []

    def err(msg):
        errors.append(msg)

    corpus = read_jsonl(HERE / "corpus/docs.jsonl")
    texts = {}
    for d in corpus:
        if not 3 <= len(d["passages"]) <= 6:
            err(f"{d['doc_id']}: {len(d['passages'])} passages")
        for p in d["passages"]:
            texts[p["id"]] = p["text"]
            nw = len(p["text"].split())
            if not 40 <= nw <= 90:
                err(f"{p['id']}: {nw} words")
    questions = read_jsonl(HERE / "questions.jsonl")
    qmap = {x["id"]: x for x in questions}
    for x in questions:
        for p in x["relevant"]:
            if p not in texts:
                err(f"{x['id']}: relevant {p} not in corpus")
        if (x["meta"]["query_type"] == "unanswerable") != (not x["relevant"]):
            err(f"{x['id']}: unanswerable iff no relevant passages")

    cite = re.compile(r"\[(\d+)\]")
    for s in SYSTEMS:
        path = HERE / f"runs/{s}.jsonl"
        recs = read_jsonl(path)
        if [r["id"] for r in recs] != [x["id"] for x in questions]:
            err(f"{path}: ids differ from questions.jsonl")
        for r in recs:
            x = qmap.get(r["id"])
            if x is None:
                continue
            for k in ("query", "reference", "meta"):
                if r[k] != x[k]:
                    err(f"{path} {r['id']}: {k} differs from questions.jsonl")
            if r["system"] != s:
                err(f"{path} {r['id']}: system {r['system']}")
            if not 3 <= len(r["contexts"]) <= 5:
                err(f"{path} {r['id']}: {len(r['contexts'])} contexts")
            for c in r["contexts"]:
                if texts.get(c["id"]) != c["text"]:
                    err(f"{path} {r['id']}: context {c['id']} text is not the corpus text")
                if c["relevance"] not in (0, 1, 2, 3):
                    err(f"{path} {r['id']}: relevance {c['relevance']}")
            for n in cite.findall(r["answer"]):
                if not 1 <= int(n) <= len(r["contexts"]):
                    err(f"{path} {r['id']}: citation [{n}] out of range")
            if "{" in r["answer"]:
                err(f"{path} {r['id']}: unresolved placeholder")
            for t in r.get("history", []):
                if t["role"] not in ("user", "assistant"):
                    err(f"{path} {r['id']}: history role {t['role']}")

    for r in read_jsonl(HERE / "zh/runs.jsonl"):
        for n in cite.findall(r["answer"]):
            if not 1 <= int(n) <= len(r["contexts"]):
                err(f"zh {r['id']}/{r['system']}: citation [{n}] out of range")

    with open(HERE / "openrag/results_input.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    want = ["query_id", "query", "query_run", "passage_id", "passage", "generated_answer"]
    if not rows or list(rows[0].keys()) != want:
        err("openrag csv: wrong columns")
    for row in rows:
        if texts.get(row["passage_id"]) != row["passage"]:
            err(f"openrag csv: {row['query_id']} passage {row['passage_id']} differs from corpus")
        if qmap[row["query_id"]]["query"] != row["query"]:
            err(f"openrag csv: {row['query_id']} query differs")

    for lab in read_jsonl(HERE / "human/pairwise_labels.jsonl"):
        if lab["label"] not in ("A", "B", "tie") or lab["id"] not in qmap:
            err(f"pairwise: bad row {lab}")
    with open(HERE / "human/ratings.csv", encoding="utf-8", newline="") as f:
        ratings = list(csv.DictReader(f))
    if len(ratings) != len(SYSTEMS) * len(questions):
        err(f"ratings: {len(ratings)} rows")
    for row in ratings:
        if row["usefulness"] not in "12345" or len(row["usefulness"]) != 1:
            err(f"ratings: bad row {row}")

    if errors:
        print("\n".join(errors))
        raise SystemExit(1)
    print(f"ok: {len(corpus)} documents, {len(texts)} passages, {len(questions)} questions, "
          f"{len(SYSTEMS)} runs, {len(rows)} Open RAG Eval rows, {len(ratings)} ratings")


if __name__ == "__main__":
    if "--check" not in sys.argv[1:]:
        write_all()
    check()
